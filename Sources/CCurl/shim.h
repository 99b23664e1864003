#ifndef XIZOR_CCURL_SHIM_H
#define XIZOR_CCURL_SHIM_H
/* Debian's libcurl (libcurl4-openssl-dev), for webhook deliveries and invitation mail (SMTP). curl_easy_setopt and
 * curl_easy_getinfo are variadic, which Swift cannot call: these wrappers fix the argument type. */
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

static inline CURLcode xizor_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode xizor_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode xizor_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode xizor_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode xizor_curl_setopt_write(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode xizor_curl_setopt_opensocket(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
static inline CURLcode xizor_curl_setopt_read(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode xizor_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
