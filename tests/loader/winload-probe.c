/*
 * What Windows' (here: wine's) real loader loads, for tests/loader/compare-wine.sh to hold
 * gpudoctor's emulation against it:
 *
 *   winload-probe.exe standard|extension MODULE UNDER [--path P] [--cwd D] [--dll-dir D]...
 *
 * sets PATH and the current directory, adds the directories with AddDllDirectory, loads MODULE
 * with LoadLibraryW (standard) or LoadLibraryExW(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) (extension, as Python 3.8+ imports a .pyd), and prints the
 * path of every module of the process under UNDER, lower case, one a line; or "error N" with
 * GetLastError's code when the load fails.
 */
#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <wchar.h>
#include <wctype.h>

static void print_utf8(const wchar_t *w)
{
    char buf[4 * MAX_PATH];
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, sizeof buf, NULL, NULL);
    if (n > 0)
        printf("%s\n", buf);
}

int wmain(int argc, wchar_t **argv); /* the entry point of -municode */

int wmain(int argc, wchar_t **argv)
{
    if (argc < 4)
        return 2;
    int ext = wcscmp(argv[1], L"extension") == 0;
    const wchar_t *module = argv[2], *under = argv[3];
    for (int i = 4; i + 1 < argc; i += 2) {
        if (wcscmp(argv[i], L"--path") == 0)
            SetEnvironmentVariableW(L"PATH", argv[i + 1]);
        else if (wcscmp(argv[i], L"--cwd") == 0)
            SetCurrentDirectoryW(argv[i + 1]);
        else if (wcscmp(argv[i], L"--dll-dir") == 0 && !AddDllDirectory(argv[i + 1]))
            return 3;
    }
    SetErrorMode(SEM_FAILCRITICALERRORS);
    HMODULE h =
        ext ? LoadLibraryExW(module, NULL,
                             LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
            : LoadLibraryW(module);
    if (!h) {
        printf("error %lu\n", (unsigned long)GetLastError());
        return 0;
    }
    HMODULE mods[1024];
    DWORD need = 0;
    if (!EnumProcessModules(GetCurrentProcess(), mods, sizeof mods, &need))
        return 4;
    size_t len = wcslen(under);
    for (DWORD i = 0; i < need / sizeof *mods && i < 1024; i++) {
        wchar_t path[MAX_PATH];
        if (!GetModuleFileNameW(mods[i], path, MAX_PATH))
            continue;
        for (wchar_t *p = path; *p; p++)
            *p = (wchar_t)towlower(*p);
        if (_wcsnicmp(path, under, len) == 0)
            print_utf8(path);
    }
    return 0;
}
