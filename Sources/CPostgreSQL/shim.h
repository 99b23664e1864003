#ifndef XIZOR_CPOSTGRESQL_SHIM_H
#define XIZOR_CPOSTGRESQL_SHIM_H
/* Debian's libpq-dev installs the client headers under /usr/include/postgresql. */
#include <postgresql/libpq-fe.h>
#endif
