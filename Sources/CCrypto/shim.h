#ifndef XIZOR_CCRYPTO_SHIM_H
#define XIZOR_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian's libssl-dev): SHA-256 and HMAC-SHA256 through the EVP interface. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#endif
