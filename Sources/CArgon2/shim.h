#ifndef XIZOR_CARGON2_SHIM_H
#define XIZOR_CARGON2_SHIM_H
/* The reference Argon2 (Debian's libargon2-dev): people's passwords, hashed with Argon2id. */
#include <argon2.h>
#endif
