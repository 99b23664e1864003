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
/* Edge-triggered registration (EPOLLET, 1 << 31: outside an enum's int range, so a literal checked
   against EPOLLET in CSystem.c). */
#define XIZOR_POLL_EDGE 0x80000000u
/* A descriptor several epoll instances wait on (the listening socket, in every I/O loop's set):
   a readiness wakes one of the waiting instances rather than all (EPOLLEXCLUSIVE, Linux 4.5). */
#define XIZOR_POLL_EXCLUSIVE 0x10000000u
int xizor_poll_create(void);
int xizor_poll_add(int poller, int fd, uint32_t events);
int xizor_poll_modify(int poller, int fd, uint32_t events);
int xizor_poll_remove(int poller, int fd);
/* Waits at most timeout_ms (0: does not wait) for up to max (at most 256) ready descriptors. */
int xizor_poll_wait(int poller, int *fds, uint32_t *events, int max, int timeout_ms);

/* recv, send and sendmsg as plain system calls. glibc's wrappers are pthread cancellation points:
   in a process with more than one thread each call enables and then disables asynchronous
   cancellation, two atomic compare-and-swaps on the thread's cancel state around every read and
   write. Nothing here cancels a thread, so a loop's socket calls skip them (nginx's single-threaded
   worker skips them too: glibc checks for one thread first). Same results and errno as the
   wrappers. */
ssize_t xizor_recv(int fd, void *buffer, size_t length, int flags);
ssize_t xizor_send(int fd, const void *buffer, size_t length, int flags);
ssize_t xizor_sendmsg(int fd, const struct msghdr *message, int flags);

/* A wake-up for a thread blocked in xizor_poll_wait: an eventfd (non-blocking, close-on-exec) to
   register with the poller; signal makes it readable, drain makes it quiet again. -1 on failure. */
int xizor_wakeup_create(void);
int xizor_wakeup_signal(int wakeup);
void xizor_wakeup_drain(int wakeup);

/* Blocks every signal it can in the calling thread, so SIGTERM and SIGINT reach the server's
   signal thread (sigwait) rather than a loop thread (a fault such as SIGSEGV is still delivered:
   the kernel does not let a thread block those). */
void xizor_block_signals(void);

/* The calling thread's kernel id (what /proc/self/task lists), and its name (at most 15 bytes are
   kept: what `top -H` and /proc/self/task/N/comm show). */
int xizor_thread_id(void);
void xizor_name_thread(const char *name);

/* Sets the calling thread's nice value (Linux's nice is per thread); 0 on success, else -1. */
int xizor_set_thread_nice(int nice);
/* The calling thread's nice value. */
int xizor_thread_nice(void);

/* CPUs this process may run on (its affinity mask: 1 under `taskset -c 0`), at least 1. */
int xizor_available_cpus(void);

/* Whether the calling thread is running an inline handler or admission (Swift's InlineExecution):
   a C thread-local, set and read in an instruction or two where pthread_setspecific and
   pthread_getspecific were library calls (about 140 instructions of every inline request). */
extern _Thread_local int xizor_inline_active;
static inline void xizor_set_inline_active(int active) { xizor_inline_active = active; }
static inline int xizor_is_inline_active(void) { return xizor_inline_active; }
#endif
