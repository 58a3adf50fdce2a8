#include "probe/vchild.h"

#include "core/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gd_vc_step(struct gd_child_out *out, const char *fmt, ...)
{
    char step[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(step, sizeof step, fmt, ap);
    va_end(ap);
    gd_child_send(out, "step", "%s", step);
}

void gd_vc_fail(struct gd_child_out *out, const char *key, const char *call, long code,
                const char *name)
{
    char k[128];
    snprintf(k, sizeof k, "%s!", key);
    gd_child_send(out, k, "%s %ld %s", call, code, name ? name : "");
}

void gd_vc_done(struct gd_child_out *out)
{
    gd_child_send(out, "done", "1");
}

static void describe_end(struct gd_vc *vc, unsigned timeout_ms)
{
    const struct gd_child_result *r = &vc->res;
    char sig[32];
    vc->done = r->end == GD_CHILD_EXITED && r->code == 0 &&
               gd_msgs_str(&vc->msgs, "done", sig, sizeof sig) != NULL;
    if (vc->done)
        return;
    switch (r->end) {
    case GD_CHILD_TIMED_OUT:
        vc->end = "timeout";
        snprintf(vc->problem, sizeof vc->problem, "did not finish within %u s: killed during %s",
                 (timeout_ms + 999) / 1000, vc->step);
        break;
    case GD_CHILD_SIGNALED:
        vc->end = "signal";
        snprintf(vc->problem, sizeof vc->problem, "crashed with %s during %s",
                 gd_os_signal_name(r->code, sig, sizeof sig), vc->step);
        break;
    case GD_CHILD_EXITED:
        vc->end = "exit";
        snprintf(vc->problem, sizeof vc->problem, "exited with status %d during %s", r->code,
                 vc->step);
        break;
    case GD_CHILD_EXEC_FAILED:
        /* Only a program can fail to be executed, and vendor children are functions: said
         * all the same rather than left without a reason. */
        vc->end = "exit";
        snprintf(vc->problem, sizeof vc->problem, "could not be started: %s", r->exec_error);
        break;
    }
}

enum gd_status gd_vc_run(const struct gd_child_job *jobs, size_t n, unsigned timeout_ms,
                         struct gd_vc *vcs, gd_child_watch_fn watch, void *user)
{
    if (n == 0)
        return GD_OK;
    memset(vcs, 0, n * sizeof *vcs);
    struct gd_child_result *results = gd_calloc(n, sizeof *results);
    if (!results)
        return GD_ENOMEM;
    enum gd_status st =
        gd_os_children_run_watched(jobs, n, timeout_ms, GD_VC_OUTPUT_MAX, results, watch, user);
    for (size_t i = 0; i < n; i++) {
        struct gd_vc *vc = &vcs[i];
        vc->res = results[i];
        if (!vc->res.output)
            continue;
        /* Output cut below the cap was cut by a failed allocation (src/os keeps what it had). */
        if (vc->res.truncated && vc->res.len < GD_VC_OUTPUT_MAX && st == GD_OK)
            st = GD_ENOMEM;
        if (gd_msgs_parse(vc->res.output, vc->res.len, &vc->msgs) != GD_OK && st == GD_OK)
            st = GD_ENOMEM;
        if (!gd_msgs_str(&vc->msgs, "step", vc->step, sizeof vc->step))
            snprintf(vc->step, sizeof vc->step, "start");
        describe_end(vc, timeout_ms);
    }
    gd_free(results);
    return st;
}

void gd_vc_free(struct gd_vc *vc)
{
    if (!vc)
        return;
    gd_msgs_free(&vc->msgs);
    gd_child_result_free(&vc->res);
}

const char *gd_vc_str(const struct gd_vc *vc, const char *key, char *buf, size_t size)
{
    return gd_msgs_str(&vc->msgs, key, buf, size);
}

bool gd_vc_int(const struct gd_vc *vc, const char *key, long long *value)
{
    return gd_msgs_int(&vc->msgs, key, value);
}

bool gd_vc_failure(const struct gd_vc *vc, const char *key, enum gd_vendor_api api, char *call,
                   long *code, char *name)
{
    char k[128], text[600];
    snprintf(k, sizeof k, "%s!", key);
    if (!gd_msgs_str(&vc->msgs, k, text, sizeof text))
        return false;
    /* "CALL CODE NAME": the call may be a phrase ("dlopen"), the code a number. */
    char *sp1 = strchr(text, ' ');
    char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (sp1)
        *sp1 = '\0';
    if (sp2)
        *sp2 = '\0';
    snprintf(call, 64, "%.63s", text);
    *code = sp1 ? strtol(sp1 + 1, NULL, 10) : -1;
    const char *known = gd_vendor_error_name(api, *code);
    snprintf(name, GD_VC_NAME_MAX, "%s", sp2 && sp2[1] ? sp2 + 1 : known ? known : "");
    return true;
}

const struct gd_fact *gd_vc_fact(struct gd_entity *e, const char *name, const struct gd_vc *vc,
                                 const char *key, bool integer, enum gd_vendor_api api,
                                 long absent_code, struct gd_source src)
{
    char value[1024], call[64], err[GD_VC_NAME_MAX];
    long long n;
    long code;
    if (integer && gd_vc_int(vc, key, &n))
        return gd_fact_int(e, name, n, src);
    if (!integer && gd_vc_str(vc, key, value, sizeof value))
        return gd_fact_str(e, name, value, src);
    if (gd_vc_failure(vc, key, api, call, &code, err)) {
        char reason[GD_VC_NAME_MAX + 96];
        if (code == -1 || strcmp(call, "dlopen") == 0 || strcmp(call, "dlsym") == 0)
            snprintf(reason, sizeof reason, "%s: %s", call, err[0] ? err : "failed");
        else if (err[0])
            snprintf(reason, sizeof reason, "%s returned %s (%ld)", call, err, code);
        else
            snprintf(reason, sizeof reason, "%s returned %ld", call, code);
        if ((absent_code >= 0 && code == absent_code) || strcmp(call, "dlopen") == 0)
            return gd_fact_absent(e, name, reason, src);
        return gd_fact_unknown(e, name, reason, src);
    }
    if (integer && gd_vc_str(vc, key, value, sizeof value)) {
        char reason[1100];
        snprintf(reason, sizeof reason, "not a number: \"%s\"", value);
        return gd_fact_unknown(e, name, reason, src);
    }
    char reason[400];
    if (vc->done)
        snprintf(reason, sizeof reason, "not reported");
    else
        snprintf(reason, sizeof reason, "not reached: the call %s", vc->problem);
    return gd_fact_unknown(e, name, reason, src);
}

void gd_vc_record_end(struct gd_entity *e, const struct gd_vc *vc, const char *library)
{
    if (vc->done)
        return;
    struct gd_source src = gd_src(GD_SOURCE_CALL, library);
    gd_fact_str(e, "call.library", library, src);
    gd_fact_str(e, "call.end", vc->end, src);
    gd_fact_str(e, "call.problem", vc->problem, src);
}
