#ifndef XIZOR_CSYSTEM_H
#define XIZOR_CSYSTEM_H
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>

/* accept4 is not exported by Glibc's Swift module. */
int xizor_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/* epoll without its packed struct (whose layout Swift should not have to reproduce): readiness
   comes back as two plain arrays, descriptors and event masks. */
enum {
    XIZOR_POLL_IN = EPOLLIN,
    XIZOR_POLL_OUT = EPOLLOUT,
    XIZOR_POLL_ERR = EPOLLERR,
    XIZOR_POLL_HUP = EPOLLHUP,
};
int xizor_poll_create(void);
int xizor_poll_add(int poller, int fd, uint32_t events);
int xizor_poll_modify(int poller, int fd, uint32_t events);
int xizor_poll_remove(int poller, int fd);
/* Waits at most timeout_ms (0: does not wait) for up to max (at most 256) ready descriptors. */
int xizor_poll_wait(int poller, int *fds, uint32_t *events, int max, int timeout_ms);

/* Sets the calling thread's nice value (Linux's nice is per thread); 0 on success, else -1. */
int xizor_set_thread_nice(int nice);
/* The calling thread's nice value. */
int xizor_thread_nice(void);

/* CPUs this process may run on (its affinity mask: 1 under `taskset -c 0`), at least 1. */
int xizor_available_cpus(void);
#endif
