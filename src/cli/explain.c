/* gpudoctor explain: why did this run fail? A log (or a command's output) against the
 * signatures, the causes checked against this machine (or a saved report). docs/explain.md. */
#include "cli/cli.h"

#include "os/os.h"
#include "os/run.h"

#include <errno.h>
#include <gpudoctor/gpudoctor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: gpudoctor explain [OPTIONS] [FILE | -]\n"
    "       gpudoctor explain [OPTIONS] --run -- COMMAND [ARGS...]\n"
    "\n"
    "Read the log of a failed run (a traceback, a training log, dmesg, nvidia-smi's output),\n"
    "name the causes of the failure, most likely first, with the matched lines, what each\n"
    "means and how to fix it, checked against this machine. FILE '-' (or none, with standard\n"
    "input not a terminal) reads standard input.\n"
    "\n"
    "Options:\n"
    "  --run               run COMMAND, pass its output through unchanged, and explain it\n"
    "                      when it fails (exits non-zero); the explanation goes to standard\n"
    "                      error, gpudoctor exits with COMMAND's exit status\n"
    "  --report FILE       check the causes against a report saved with\n"
    "                      `gpudoctor check --json` (another machine, an earlier state)\n"
    "  --no-probe          explain from the log alone (a log from another machine)\n"
    "  --root DIR          probe the tree at DIR as if it were / (an unpacked image)\n"
    "  --env NAME=VALUE    set a variable of the probed environment (repeatable)\n"
    "  --env-file FILE     read NAME=VALUE lines from FILE\n"
    "  --no-env            ignore this process's environment when probing\n"
    "  --kb DIR            knowledge-base tables in DIR (signatures too) replace the embedded\n"
    "  --json              print the explanation as JSON (schema gpudoctor.explain/1)\n"
    "  -o, --output FILE   write the explanation to FILE (replaced atomically)\n"
    "  --color WHEN        auto (default), always or never; NO_COLOR turns auto off\n"
    "  --no-color          same as --color never\n"
    "  -v, --verbose       also the machine's facts behind each cause\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 no known failure found, 1 at least one cause found, 2 usage or internal\n"
    "error. With --run: COMMAND's exit status (128+N when a signal N killed it, 127 when it\n"
    "could not be run). Causes and signatures: docs/explain.md.\n";

#define READ_CHUNK (1024 * 1024)

struct feed {
    struct gd_explain_stream *stream;
    enum gd_status status;
};

static void on_output(void *ctx, unsigned channel, const char *data, size_t len)
{
    struct feed *f = ctx;
    if (f->status == GD_OK)
        f->status = gd_explain_stream_feed(f->stream, channel, data, len);
}

/* The log from `path` ("-": standard input) into the stream. */
static enum gd_status read_log(const char *path, struct gd_explain_stream *s)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp)
        return errno == EACCES ? GD_EACCES : errno == ENOENT ? GD_ENOENT : GD_EIO;
    char *buf = malloc(READ_CHUNK);
    enum gd_status st = buf ? GD_OK : GD_ENOMEM;
    size_t n;
    while (st == GD_OK && (n = fread(buf, 1, READ_CHUNK, fp)) > 0)
        st = gd_explain_stream_feed(s, 0, buf, n);
    if (st == GD_OK && ferror(fp))
        st = GD_EIO;
    free(buf);
    if (fp != stdin)
        fclose(fp);
    return st;
}

static enum gd_status load_report(const char *path, struct gd_report **out)
{
    char *data = NULL;
    size_t len = 0;
    enum gd_status st = gd_os_read_file(path, 64u * 1024 * 1024, &data, &len);
    if (st == GD_OK)
        st = gd_report_read_json(data, len, out);
    gd_free(data);
    return st;
}

int gd_cmd_explain(int argc, char **argv)
{
    struct gd_args a = { argc, 0, argv, "explain" };
    struct gd_options *opts = NULL;
    struct gd_explain *ex = NULL;
    struct gd_explain_stream *stream = NULL;
    struct gd_explain_result *result = NULL;
    struct gd_report *machine = NULL;
    char *text = NULL;
    int rc = GD_EXIT_USAGE;
    const char *file = NULL, *report_path = NULL, *output = NULL, *value = NULL;
    const char *color_when = "auto";
    char **command = NULL;
    bool run = false, no_probe = false, json = false, verbose = false, bad = false;
    enum gd_status st = gd_options_new(&opts);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor: %s\n", gd_status_str(st));
        return GD_EXIT_USAGE;
    }
    while (a.i < a.argc && !bad) {
        const char *arg = argv[a.i];
        if (gd_args_flag(&a, "-h", "--help")) {
            fputs(usage, stdout);
            rc = GD_EXIT_OK;
            goto out;
        } else if (strcmp(arg, "--") == 0) {
            command = argv + a.i + 1;
            break;
        } else if (gd_args_flag(&a, NULL, "--run")) {
            run = true;
        } else if (gd_args_flag(&a, NULL, "--no-probe")) {
            no_probe = true;
        } else if (gd_args_flag(&a, NULL, "--json")) {
            json = true;
        } else if (gd_args_flag(&a, "-v", "--verbose")) {
            verbose = true;
        } else if (gd_args_flag(&a, NULL, "--no-color")) {
            color_when = "never";
        } else if (gd_args_flag(&a, NULL, "--no-env")) {
            gd_options_clear_env(opts);
        } else if (gd_args_value(&a, NULL, "--color", &value, &bad)) {
            if (!bad && gd_color_choice(value) < 0) {
                gd_usage_error("explain", "--color takes auto, always or never, not '%s'", value);
                goto out;
            }
            color_when = value;
        } else if (gd_args_value(&a, "-o", "--output", &value, &bad)) {
            output = value;
        } else if (gd_args_value(&a, NULL, "--report", &value, &bad)) {
            report_path = value;
        } else if (gd_args_value(&a, NULL, "--kb", &value, &bad)) {
            if (!bad)
                gd_options_set_kb_dir(opts, value);
        } else if (gd_args_value(&a, NULL, "--root", &value, &bad)) {
            if (!bad && (st = gd_options_set_root(opts, value)) != GD_OK) {
                gd_usage_error("explain", "--root '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--env", &value, &bad)) {
            if (!bad && (st = gd_options_set_env(opts, value)) != GD_OK) {
                gd_usage_error("explain", "--env takes NAME=VALUE, not '%s'", value);
                goto out;
            }
        } else if (gd_args_value(&a, NULL, "--env-file", &value, &bad)) {
            size_t bad_lines = 0;
            if (!bad && (st = gd_options_load_env_file(opts, value, &bad_lines)) != GD_OK) {
                gd_usage_error("explain", "--env-file '%s': %s", value, gd_status_str(st));
                goto out;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            gd_usage_error("explain", "unknown option '%s'", arg);
            goto out;
        } else if (!file) {
            file = arg;
            a.i++;
        } else {
            gd_usage_error("explain", "unexpected argument '%s'", arg);
            goto out;
        }
    }
    if (bad)
        goto out;
    if (run && (!command || !command[0])) {
        gd_usage_error("explain", "--run needs a command after --");
        goto out;
    }
    if (!run && command) {
        gd_usage_error("explain", "a command after -- needs --run");
        goto out;
    }
    if (run && file) {
        gd_usage_error("explain", "give a FILE or --run -- COMMAND, not both");
        goto out;
    }
    if (report_path && no_probe) {
        gd_usage_error("explain", "--report and --no-probe exclude each other");
        goto out;
    }
    if (!run && !file) {
        if (gd_os_isatty(0)) {
            gd_usage_error("explain", "which log? Give a FILE, - for standard input, or "
                                      "--run -- COMMAND");
            goto out;
        }
        file = "-";
    }
    /* A saved report is read before anything runs: a bad path is a usage error. */
    if (report_path && (st = load_report(report_path, &machine)) != GD_OK) {
        gd_usage_error("explain", "--report '%s': %s", report_path,
                       st == GD_EFORMAT ? "not a report of gpudoctor check --json"
                                        : gd_status_str(st));
        goto out;
    }
    st = gd_explain_new(opts, &ex);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor explain: cannot load the signatures: %s\n", gd_status_str(st));
        goto out;
    }
    for (size_t i = 0; i < gd_explain_problem_count(ex); i++)
        fprintf(stderr, "gpudoctor explain: %s\n", gd_explain_problem_at(ex, i));
    if ((st = gd_explain_stream_new(ex, &stream)) != GD_OK) {
        fprintf(stderr, "gpudoctor explain: %s\n", gd_status_str(st));
        goto out;
    }

    struct gd_os_run_end end = { false, 0, false };
    if (run) {
        struct feed f = { stream, GD_OK };
        st = gd_os_run_tee(command, on_output, &f, &end);
        if (st != GD_OK) {
            fprintf(stderr, "gpudoctor explain: cannot run %s: %s\n", command[0],
                    gd_status_str(st));
            rc = st == GD_ENOENT ? 127 : st == GD_EACCES ? 126 : GD_EXIT_USAGE;
            goto out;
        }
        /* From here on gpudoctor exits with the command's status, whatever happens to the
         * explanation: a CI script must see the command's failure, not gpudoctor's. */
        rc = end.signaled ? 128 + end.code : end.code;
        if (f.status != GD_OK) {
            fprintf(stderr, "gpudoctor explain: the output was not explained: %s\n",
                    gd_status_str(f.status));
            goto out;
        }
        if (end.output_lost)
            fprintf(stderr, "gpudoctor explain: part of %s's output could not be passed on\n",
                    command[0]);
        if (rc == 0)
            goto out; /* it worked: nothing to explain */
        /* Said before the explanation, which comes after all of the command's output. */
        fflush(stdout);
        if (end.signaled)
            fprintf(stderr, "\ngpudoctor explain: %s was killed by signal %d\n", command[0],
                    end.code);
        else
            fprintf(stderr, "\ngpudoctor explain: %s exited with status %d\n", command[0],
                    end.code);
    } else {
        st = read_log(file, stream);
        if (st != GD_OK) {
            fprintf(stderr, "gpudoctor explain: cannot read %s: %s\n",
                    strcmp(file, "-") == 0 ? "standard input" : file, gd_status_str(st));
            goto out;
        }
    }

    /* The machine: probed now (after the run, in the state it failed in), unless a report
     * was given or --no-probe. */
    if (!machine && !no_probe && (st = gd_check(opts, &machine)) != GD_OK) {
        fprintf(stderr,
                "gpudoctor explain: cannot probe this machine (%s); explaining from "
                "the log alone\n",
                gd_status_str(st));
        machine = NULL;
    }
    const char *name = run ? command[0] : strcmp(file, "-") == 0 ? "standard input" : file;
    st = gd_explain_stream_finish(stream, name, machine, &result);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor explain: %s\n", gd_status_str(st));
        if (!run)
            rc = GD_EXIT_USAGE;
        goto out;
    }
    int fd = run && !output ? 2 : 1;
    struct gd_render_options ro = { false, verbose };
    int choice = gd_color_choice(color_when);
    ro.color =
        !output && !json &&
        (choice == 1 ? (fd == 1 || strcmp(color_when, "always") == 0 || gd_os_isatty(2)) : false);
    size_t len = 0;
    st = gd_explain_render(result, json ? GD_FORMAT_JSON : GD_FORMAT_TEXT, &ro, &text, &len);
    if (st != GD_OK) {
        fprintf(stderr, "gpudoctor explain: cannot render: %s\n", gd_status_str(st));
        if (!run)
            rc = GD_EXIT_USAGE;
        goto out;
    }
    if (fd == 2) {
        fflush(stdout);
        fwrite(text, 1, len, stderr);
        fflush(stderr);
    } else if (gd_write_output(output, text, len) != 0) {
        if (!run)
            rc = GD_EXIT_USAGE;
        goto out;
    }
    if (!run)
        rc = gd_explain_cause_count(result) ? GD_EXIT_FINDING : GD_EXIT_OK;
out:
    gd_free(text);
    gd_explain_result_free(result);
    gd_explain_stream_free(stream);
    gd_explain_free(ex);
    gd_report_free(machine);
    gd_options_free(opts);
    return rc;
}
