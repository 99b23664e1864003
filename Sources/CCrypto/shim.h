#ifndef XIZOR_CCRYPTO_SHIM_H
#define XIZOR_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian's libssl-dev): SHA-256 and HMAC-SHA256 through the EVP interface; X.509
 * chains, object identifiers and ECDSA for the app stores' signed data (StoreSignatures). */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/objects.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>

/* OpenSSL's STACK_OF(X509) functions are macros, which Swift cannot call. */
static inline STACK_OF(X509) *xizor_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int xizor_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline void xizor_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline int xizor_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *xizor_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
#endif
