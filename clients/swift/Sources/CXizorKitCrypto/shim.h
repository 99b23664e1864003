#ifndef XIZOR_KIT_CRYPTO_SHIM_H
#define XIZOR_KIT_CRYPTO_SHIM_H
/* OpenSSL's libcrypto (Debian's libssl-dev), for XizorKit where CryptoKit does not exist (Linux):
 * SHA-256 for experiment buckets and answer digests, and Ed25519 verification of signed answers,
 * through the EVP interface. Apple platforms use CryptoKit and never import this. */
#include <openssl/evp.h>
#endif
