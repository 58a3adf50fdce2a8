/* gpudoctor: a thin dispatcher over libgpudoctor; one file per command. */
#include "cli/cli.h"
#include "os/os.h"
#include "probe/childfns.h"

#include <gpudoctor/gpudoctor.h>
#include <string.h>

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "check", gd_cmd_check, "inspect this machine (or --root DIR) and print findings" },
    { "which", gd_cmd_which, "which library the loader would load, from where, and why" },
    { "test", gd_cmd_test, "run real work on each GPU through every layer, results checked" },
    { "compat", gd_cmd_compat, "what a version (tensorflow==2.15, cuda==12.4, a GPU) needs" },
    { "plan", gd_cmd_plan, "the newest releases of a framework that run here, and upgrades" },
    { "explain", gd_cmd_explain,
      "why a run failed: its log (or --run -- CMD) against known errors" },
};

static void help(void)
{
    printf("Usage: gpudoctor [COMMAND] [OPTIONS]\n\n"
           "Why does this machine's NVIDIA GPU stack fail, and what exactly to change.\n\n"
           "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        printf("  %-10s %s%s\n", commands[i].name, commands[i].summary,
               i == 0 ? " (the default)" : "");
    printf("  %-10s %s\n  %-10s %s\n\n", "help", "show this help", "version", "print the version");
    printf("'gpudoctor COMMAND --help' describes a command's options.\n"
           "Exit status: 0 no error finding, 1 an error finding, 2 usage or internal error;\n"
           "compat and plan: 0 yes, 1 no, 3 the knowledge base cannot tell.\n");
}

int main(int argc, char **argv)
{
    /* Where there is no fork (Windows) a vendor call's child is gpudoctor started again with
     * the function named on its command line: run it and exit, before any command. */
    gd_os_child_serve(argc, argv, gd_probe_child_defs, gd_probe_child_def_count);
    if (argc > 1 && (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
                     strcmp(argv[1], "-h") == 0)) {
        help();
        return GD_EXIT_OK;
    }
    if (argc > 1 && (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0)) {
        printf("gpudoctor %s\n", gd_version());
        return GD_EXIT_OK;
    }
    if (argc > 1 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].run(argc - 2, argv + 2);
        return gd_usage_error(NULL, "unknown command '%s'", argv[1]);
    }
    return gd_cmd_check(argc - 1, argv + 1);
}
