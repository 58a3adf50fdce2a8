/* Win32 implementation of src/os/run.h (`gpudoctor explain --run -- CMD ARGS`).
 *
 * CreateProcessW with the arguments quoted as the command's C runtime reads them back, the
 * program looked for as CreateProcess looks ("as a shell would" on Windows: the application's
 * directory, the current one, System32, Windows, then PATH, ".exe" added); its standard input is
 * this process's, its output and error come through two pipes, read as they fill (anonymous
 * pipes cannot be waited on together: PeekNamedPipe, as the children of os_win32.c do), each
 * piece written unchanged to this process's own handle (no text-mode translation: the command
 * wrote its own line ends) and handed to the callback. While it runs this process ignores Ctrl+C
 * and Ctrl+Break, which reach the command through the console they share; an exception code ends
 * it as the signal a POSIX reader expects (0xC0000005: SIGSEGV). */
#define WIN32_LEAN_AND_MEAN
#include "os/run.h"

#include "core/alloc.h"
#include "os/win32.h"

#include <stdio.h>
#include <string.h>
#include <windows.h>

#define CHUNK 65536

/* Write all of [p, p+n) to `h`; false when the stream is gone. */
static bool write_all(HANDLE h, const char *p, size_t n)
{
    while (n) {
        DWORD w = 0;
        if (!WriteFile(h, p, n > 0x40000000u ? 0x40000000u : (DWORD)n, &w, NULL) || w == 0)
            return false;
        p += w;
        n -= w;
    }
    return true;
}

/* One pipe: read what it holds now, pass it on; false once it is closed (every writer gone). */
static bool pump(HANDLE *pipe, HANDLE to, unsigned channel, bool *lost, gd_os_output_fn cb,
                 void *ctx, char *buf, bool *moved)
{
    if (!*pipe)
        return false;
    DWORD avail = 0;
    if (!PeekNamedPipe(*pipe, NULL, 0, NULL, &avail, NULL)) {
        CloseHandle(*pipe);
        *pipe = NULL;
        return false;
    }
    if (avail == 0)
        return true;
    DWORD got = 0;
    if (!ReadFile(*pipe, buf, avail < CHUNK ? avail : CHUNK, &got, NULL) || got == 0) {
        CloseHandle(*pipe);
        *pipe = NULL;
        return false;
    }
    *moved = true;
    /* Keep reading when our own stream is gone: the command must never block on a full pipe. */
    if (!*lost && !write_all(to, buf, got))
        *lost = true;
    if (cb)
        cb(ctx, channel, buf, got);
    return true;
}

/* This process's standard input as an inheritable handle for the command (NUL when it has
 * none); NULL when none can be had. */
static HANDLE inheritable_stdin(void)
{
    HANDLE self = GetCurrentProcess(), in = GetStdHandle(STD_INPUT_HANDLE), dup = NULL;
    if (in && in != INVALID_HANDLE_VALUE &&
        DuplicateHandle(self, in, self, &dup, 0, TRUE, DUPLICATE_SAME_ACCESS))
        return dup;
    SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
    dup = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING,
                      0, NULL);
    return dup == INVALID_HANDLE_VALUE ? NULL : dup;
}

enum gd_status gd_os_run_tee(char *const argv[], gd_os_output_fn cb, void *ctx,
                             struct gd_os_run_end *end)
{
    memset(end, 0, sizeof *end);
    if (!argv || !argv[0])
        return GD_EINVAL;
    wchar_t *cmd = NULL;
    enum gd_status st = gd_win_command_line((const char *const *)argv, &cmd);
    if (st != GD_OK)
        return st == GD_ENOMEM ? st : GD_ENOENT; /* a name no program can have */
    char *buf = gd_malloc(CHUNK);
    SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
    HANDLE out_r = NULL, out_w = NULL, err_r = NULL, err_w = NULL, in = NULL;
    if (!buf) {
        gd_free(cmd);
        return GD_ENOMEM;
    }
    if (!CreatePipe(&out_r, &out_w, &sa, 0) || !CreatePipe(&err_r, &err_w, &sa, 0) ||
        !(in = inheritable_stdin())) {
        st = GD_ECHILD;
        goto out;
    }
    SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(err_r, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in;
    si.hStdOutput = out_w;
    si.hStdError = err_w;
    PROCESS_INFORMATION pi;
    memset(&pi, 0, sizeof pi);
    fflush(stdout);
    fflush(stderr);
    /* Ctrl+C reaches every process of the console: the command decides what it means. */
    SetConsoleCtrlHandler(NULL, TRUE);
    if (!CreateProcessW(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
        DWORD e = GetLastError();
        st = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND || e == ERROR_INVALID_NAME
                 ? GD_ENOENT
             : e == ERROR_ACCESS_DENIED || e == ERROR_BAD_EXE_FORMAT ? GD_EACCES
                                                                     : GD_ECHILD;
        SetConsoleCtrlHandler(NULL, FALSE);
        goto out;
    }
    CloseHandle(pi.hThread);
    /* Only the command holds the write ends now: the pipes end when it (and what it started
     * with them) is done. */
    CloseHandle(out_w);
    CloseHandle(err_w);
    CloseHandle(in);
    out_w = err_w = in = NULL;
    HANDLE to[2] = { GetStdHandle(STD_OUTPUT_HANDLE), GetStdHandle(STD_ERROR_HANDLE) };
    bool lost[2] = { false, false };
    bool open[2] = { true, true };
    while (open[0] || open[1]) {
        bool moved = false;
        open[0] = pump(&out_r, to[0], 0, &lost[0], cb, ctx, buf, &moved);
        open[1] = pump(&err_r, to[1], 1, &lost[1], cb, ctx, buf, &moved);
        if (!moved && (open[0] || open[1]))
            Sleep(1);
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    SetConsoleCtrlHandler(NULL, FALSE);
    end->output_lost = lost[0] || lost[1];
    int sig = 0;
    if (gd_win_exception_signal(code, &sig)) {
        end->signaled = true;
        end->code = sig;
    } else {
        end->code = (int)code;
    }
out:
    for (size_t i = 0; i < 5; i++) {
        HANDLE h = i == 0 ? out_r : i == 1 ? out_w : i == 2 ? err_r : i == 3 ? err_w : in;
        if (h)
            CloseHandle(h);
    }
    gd_free(buf);
    gd_free(cmd);
    return st;
}
