/* POSIX implementation of src/os/run.h. */
#define _GNU_SOURCE
#include "os/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 65536

/* Write all of [p, p+n) to fd; false when the stream is gone (EPIPE, a closed terminal). */
static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd pf = { fd, POLLOUT, 0 };
                poll(&pf, 1, -1);
                continue;
            }
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

enum gd_status gd_os_run_tee(char *const argv[], gd_os_output_fn cb, void *ctx,
                             struct gd_os_run_end *end)
{
    memset(end, 0, sizeof *end);
    if (!argv || !argv[0])
        return GD_EINVAL;
    int out[2] = { -1, -1 }, err[2] = { -1, -1 }, exec_err[2] = { -1, -1 };
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(exec_err, O_CLOEXEC)) {
        for (int i = 0; i < 2; i++) {
            if (out[i] >= 0)
                close(out[i]);
            if (err[i] >= 0)
                close(err[i]);
            if (exec_err[i] >= 0)
                close(exec_err[i]);
        }
        return GD_ECHILD;
    }
    fflush(stdout);
    fflush(stderr);
    struct sigaction ign, old_int, old_quit, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigaction(SIGPIPE, &ign, &old_pipe);
    pid_t pid = fork();
    if (pid == 0) {
        /* Ignored dispositions survive exec: give the command the ones it was started with. */
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigaction(SIGPIPE, &old_pipe, NULL);
        if (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(126);
        execvp(argv[0], argv);
        int e = errno;
        if (write(exec_err[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    close(exec_err[1]);
    enum gd_status st = GD_OK;
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        close(exec_err[0]);
        st = GD_ECHILD;
        goto restore;
    }
    /* exec_err reads EOF when exec succeeded (close-on-exec), an errno when it failed. */
    int e = 0;
    ssize_t got;
    while ((got = read(exec_err[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(exec_err[0]);
    bool exec_failed = got == (ssize_t)sizeof e;

    char buf[CHUNK];
    struct pollfd pf[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
    bool lost[2] = { false, false };
    int open_fds = 2;
    while (open_fds) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (unsigned ch = 0; ch < 2; ch++) {
            if (pf[ch].fd < 0 || !(pf[ch].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(pf[ch].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n <= 0) {
                close(pf[ch].fd);
                pf[ch].fd = -1;
                open_fds--;
                continue;
            }
            /* Keep reading even when our own stream is gone, so that the command never blocks
             * on a full pipe; its output is then only explained, not shown. */
            if (!lost[ch] && !write_all(ch == 0 ? 1 : 2, buf, (size_t)n))
                lost[ch] = true;
            if (cb)
                cb(ctx, ch, buf, (size_t)n);
        }
    }
    for (unsigned ch = 0; ch < 2; ch++)
        if (pf[ch].fd >= 0)
            close(pf[ch].fd);
    end->output_lost = lost[0] || lost[1];
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno != EINTR) {
            st = GD_ECHILD;
            goto restore;
        }
    }
    if (exec_failed) {
        st = e == ENOENT || e == ENOTDIR ? GD_ENOENT : e == EACCES ? GD_EACCES : GD_ECHILD;
    } else if (WIFSIGNALED(ws)) {
        end->signaled = true;
        end->code = WTERMSIG(ws);
    } else {
        end->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
    }
restore:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return st;
}
