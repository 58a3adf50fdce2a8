/* gpudoctor which: which file the loader would load, from where, and why. */
#include "cli/cli.h"

#include <gpudoctor/gpudoctor.h>
#include <gpudoctor/which.h>
#include <string.h>

static const char usage[] =
    "Usage: gpudoctor which NAME [--from ELF] [--dlopen] [OPTIONS]\n"
    "       gpudoctor which --tree ELF [OPTIONS]\n"
    "       gpudoctor which --ldd ELF [OPTIONS]\n"
    "       gpudoctor which --os windows [--from FILE.pyd|.dll|.exe] NAME.dll [OPTIONS]\n"
    "       gpudoctor which --os windows --tree FILE [OPTIONS]\n"
    "\n"
    "Answer as glibc's dynamic loader would, without loading anything: where a library name\n"
    "resolves and every place tried (NAME), the whole dependency tree with the rule that\n"
    "found each edge (--tree), or ldd's lines without load addresses (--ldd). For Windows\n"
    "(--os windows, a --root holding Windows\\System32, or a PE file given), as Windows'\n"
    "DLL loader would.\n"
    "\n"
    "Options:\n"
    "  --from ELF          resolve NAME as a DT_NEEDED entry of ELF (its RPATH/RUNPATH count)\n"
    "  --dlopen            resolve NAME as ELF's dlopen(NAME), as frameworks load CUDA\n"
    "  --tree ELF          the dependency tree of ELF\n"
    "  --ldd ELF           the flat list of ELF's dependencies in ldd's line format\n"
    "  --json              the full result as JSON\n"
    "  --root DIR          inspect the tree at DIR as if it were / (its ld.so.cache and\n"
    "                      ld.so.conf, paths inside it; or a Windows drive)\n"
    "  --env NAME=VALUE    set a variable (LD_LIBRARY_PATH; PATH, SystemRoot on Windows) of the\n"
    "                      inspected environment\n"
    "  --no-env            ignore this process's environment\n"
    "  --color WHEN        auto (default), always or never\n"
    "  -h, --help          show this help\n"
    "\n"
    "Windows:\n"
    "  --os linux|windows  which loader to ask (default: told from --root and the file)\n"
    "  --from FILE         resolve NAME as an import of FILE (a .pyd, .dll or .exe)\n"
    "  --mode MODE         extension: as Python 3.8+ imports an extension module (the module's\n"
    "                      directory, the application's, --dll-dir, System32; not PATH);\n"
    "                      standard: LoadLibrary and a program's imports (the application's\n"
    "                      directory, System32, System, Windows, the current directory, PATH).\n"
    "                      Default: extension for a .pyd FILE, standard otherwise\n"
    "  --app DIR           the application's directory (default: the python.exe above FILE,\n"
    "                      an .exe FILE's directory, else FILE's directory)\n"
    "  --dll-dir DIR       a directory added with os.add_dll_directory (repeatable)\n"
    "  --cwd DIR           the current directory (default: unknown under --root)\n"
    "  --path VALUE        the PATH of the process (';'-separated; same as --env PATH=VALUE)\n"
    "\n"
    "Exit status: 0 found (every dependency found), 1 not found (or a dependency missing),\n"
    "2 usage or internal error.\n";

/* os.add_dll_directory calls one command line may give. */
#define DLL_DIRS_MAX 64

int gd_cmd_which(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "which" };
    struct gd_options *opts = NULL;
    struct gd_which *w = NULL;
    int rc = GD_EXIT_USAGE;
    const char *name = NULL, *from = NULL, *tree = NULL, *ldd = NULL, *value = NULL;
    const char *color_when = "auto";
    const char *os = NULL, *mode = NULL, *app = NULL, *cwd = NULL;
    const char *dll_dirs[DLL_DIRS_MAX];
    size_t ndll_dirs = 0;
    bool dlopen = false, json = false, bad = false, win_option = false;
    enum gd_status st = gd_options_new(&opts);
    if (st != GD_OK)
        return GD_EXIT_USAGE;
    while (a.i < a.argc && !bad) {
        const char *arg = argv[a.i];
        if (gd_args_flag(&a, "-h", "--help")) {
            fputs(usage, stdout);
            rc = GD_EXIT_OK;
            goto out;
        } else if (gd_args_flag(&a, NULL, "--dlopen")) {
            dlopen = true;
        } else if (gd_args_flag(&a, NULL, "--json")) {
            json = true;
        } else if (gd_args_flag(&a, NULL, "--no-env")) {
            gd_options_clear_env(opts);
        } else if (gd_args_flag(&a, NULL, "--no-color")) {
            color_when = "never";
        } else if (gd_args_value(&a, NULL, "--color", &value, &bad)) {
            if (!bad && gd_color_choice(value) < 0) {
                gd_usage_error("which", "--color takes auto, always or never, not '%s'", value);
                goto out;
            }
            color_when = value;
        } else if (gd_args_value(&a, NULL, "--from", &value, &bad)) {
            from = value;
        } else if (gd_args_value(&a, NULL, "--tree", &value, &bad)) {
            tree = value;
        } else if (gd_args_value(&a, NULL, "--ldd", &value, &bad)) {
            ldd = value;
        } else if (gd_args_value(&a, NULL, "--root", &value, &bad)) {
            if (!bad && (st = gd_options_set_root(opts, value)) != GD_OK) {
                gd_usage_error("which", "--root '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--os", &value, &bad)) {
            if (!bad && gd_options_set_host_os(opts, value) != GD_OK) {
                gd_usage_error("which", "--os takes linux or windows, not '%s'", value);
                goto out;
            }
            os = value;
        } else if (gd_args_value(&a, NULL, "--mode", &value, &bad)) {
            if (!bad && strcmp(value, "extension") != 0 && strcmp(value, "standard") != 0) {
                gd_usage_error("which", "--mode takes extension or standard, not '%s'", value);
                goto out;
            }
            mode = value;
            win_option = true;
        } else if (gd_args_value(&a, NULL, "--app", &value, &bad)) {
            app = value;
            win_option = true;
        } else if (gd_args_value(&a, NULL, "--cwd", &value, &bad)) {
            cwd = value;
            win_option = true;
        } else if (gd_args_value(&a, NULL, "--dll-dir", &value, &bad)) {
            if (!bad && ndll_dirs == DLL_DIRS_MAX) {
                gd_usage_error("which", "more than %d --dll-dir", DLL_DIRS_MAX);
                goto out;
            }
            if (!bad)
                dll_dirs[ndll_dirs++] = value;
            win_option = true;
        } else if (gd_args_value(&a, NULL, "--path", &value, &bad)) {
            char setting[8192];
            if (!bad &&
                (snprintf(setting, sizeof setting, "PATH=%s", value) >= (int)sizeof setting ||
                 gd_options_set_env(opts, setting) != GD_OK)) {
                gd_usage_error("which", "--path '%s': too long", value);
                goto out;
            }
            win_option = true;
        } else if (gd_args_value(&a, NULL, "--env", &value, &bad)) {
            if (!bad && gd_options_set_env(opts, value) != GD_OK) {
                gd_usage_error("which", "--env takes NAME=VALUE, not '%s'", value);
                goto out;
            }
        } else if (arg[0] == '-' && arg[1]) {
            gd_usage_error("which", "unknown option '%s'", arg);
            goto out;
        } else if (!name) {
            name = arg;
            a.i++;
        } else {
            gd_usage_error("which", "unexpected argument '%s'", arg);
            goto out;
        }
    }
    if (bad)
        goto out;
    int modes = (name != NULL) + (tree != NULL) + (ldd != NULL);
    if (modes != 1) {
        gd_usage_error("which", modes ? "give one of NAME, --tree ELF and --ldd ELF"
                                      : "which library? Give a NAME, --tree ELF or --ldd ELF");
        goto out;
    }
    const char *file = name ? from : tree ? tree : ldd;
    bool windows = os ? strcmp(os, "windows") == 0 : gd_which_is_windows(opts, file);
    if (windows) {
        if (dlopen) {
            gd_usage_error("which", "--dlopen is glibc's; on Windows, NAME without --from is "
                                    "LoadLibrary(NAME)");
            goto out;
        }
        if (from && !name) {
            gd_usage_error("which", "--from applies to a NAME");
            goto out;
        }
        struct gd_which_win win = { GD_WHICH_WIN_AUTO, app, cwd, dll_dirs, ndll_dirs };
        if (mode)
            win.mode =
                strcmp(mode, "extension") == 0 ? GD_WHICH_WIN_EXTENSION : GD_WHICH_WIN_STANDARD;
        st = gd_which_windows(opts, name, name ? from : file, &win, &w);
        if (st != GD_OK) {
            fprintf(stderr, "gpudoctor which: %s%s%s\n", file ? file : "", file ? ": " : "",
                    st == GD_EFORMAT || st == GD_ETRUNCATED ? "not a PE image we can read"
                                                            : gd_status_str(st));
            goto out;
        }
        goto print;
    }
    if (win_option) {
        gd_usage_error("which", "--app, --cwd, --dll-dir, --mode and --path are for Windows "
                                "(--os windows)");
        goto out;
    }
    if ((from || dlopen) && !name) {
        gd_usage_error("which", "--from and --dlopen apply to a NAME");
        goto out;
    }
    if (dlopen && !from) {
        gd_usage_error("which", "--dlopen needs --from ELF (the object that calls dlopen)");
        goto out;
    }
    if (name)
        st = gd_which_name(opts, name, from, dlopen, &w);
    else
        st = gd_which_tree(opts, tree ? tree : ldd, &w);
    if (st != GD_OK) {
        const char *what = name ? from : tree ? tree : ldd;
        fprintf(stderr, "gpudoctor which: %s%s%s\n", what ? what : "", what ? ": " : "",
                st == GD_EFORMAT || st == GD_ETRUNCATED ? "not an ELF file we can read"
                                                        : gd_status_str(st));
        goto out;
    }
print:;
    struct gd_render_options ro = { gd_color_choice(color_when) == 1, false };
    enum gd_which_format format = json ? GD_WHICH_JSON : ldd ? GD_WHICH_LDD : GD_WHICH_TEXT;
    st = gd_which_print(w, format, &ro, stdout);
    if (st == GD_EIO) {
        fprintf(stderr, "gpudoctor: cannot write the report to standard output\n");
        goto out;
    }
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor which: %s\n", gd_status_str(st));
        goto out;
    }
    rc = gd_which_ok(w) ? GD_EXIT_OK : GD_EXIT_FINDING;
out:
    gd_which_free(w);
    gd_options_free(opts);
    return rc;
}
