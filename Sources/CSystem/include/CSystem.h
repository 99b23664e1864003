#ifndef XIZOR_CSYSTEM_H
#define XIZOR_CSYSTEM_H
#include <sys/types.h>
#include <sys/socket.h>
/* accept4 is not exported by Glibc's Swift module. */
int xizor_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
#endif
