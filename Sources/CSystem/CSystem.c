#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CSystem.h"

_Static_assert(XIZOR_POLL_EDGE == (uint32_t)EPOLLET, "XIZOR_POLL_EDGE must be EPOLLET");
_Static_assert(XIZOR_POLL_EXCLUSIVE == (uint32_t)EPOLLEXCLUSIVE, "XIZOR_POLL_EXCLUSIVE must be EPOLLEXCLUSIVE");

_Thread_local int xizor_inline_active = 0;

int xizor_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

ssize_t xizor_recv(int fd, void *buffer, size_t length, int flags) {
    return syscall(SYS_recvfrom, fd, buffer, length, flags, NULL, NULL);
}
ssize_t xizor_send(int fd, const void *buffer, size_t length, int flags) {
    return syscall(SYS_sendto, fd, buffer, length, flags, NULL, 0);
}
ssize_t xizor_sendmsg(int fd, const struct msghdr *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}

int xizor_poll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int control(int poller, int op, int fd, uint32_t events) {
    struct epoll_event event = { .events = events, .data = { .fd = fd } };
    return epoll_ctl(poller, op, fd, &event);
}

int xizor_poll_add(int poller, int fd, uint32_t events) { return control(poller, EPOLL_CTL_ADD, fd, events); }
int xizor_poll_modify(int poller, int fd, uint32_t events) { return control(poller, EPOLL_CTL_MOD, fd, events); }
int xizor_poll_remove(int poller, int fd) { return control(poller, EPOLL_CTL_DEL, fd, 0); }

int xizor_poll_wait(int poller, int *fds, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    /* The system call, not glibc's cancellation point (see xizor_recv): epoll_pwait without a
       signal mask, which is epoll_wait on every architecture (arm64 has no epoll_wait). */
    int n = (int)syscall(SYS_epoll_pwait, poller, ready, max, timeout_ms, NULL, 0);
    for (int i = 0; i < n; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return n;
}

int xizor_wakeup_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int xizor_wakeup_signal(int wakeup) {
    uint64_t one = 1;
    return write(wakeup, &one, sizeof one) == (ssize_t)sizeof one ? 0 : -1;
}

void xizor_wakeup_drain(int wakeup) {
    uint64_t count;
    (void)read(wakeup, &count, sizeof count);
}

void xizor_block_signals(void) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
}

int xizor_thread_id(void) { return (int)syscall(SYS_gettid); }

void xizor_name_thread(const char *name) { pthread_setname_np(pthread_self(), name); }

int xizor_available_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

int xizor_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

int xizor_thread_nice(void) {
    return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
}
