/* Problems met while reading the inspected tree: loops, links above the root, unreadable or
 * oversized files. Programs hit the same walls gpudoctor hit. */
#include "rules/rules.h"

#include <string.h>

void gd_rule_root(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    size_t n = gd_report_entity_count(r);
    for (size_t i = 0; i < n; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "anomaly") != 0)
            continue;
        const struct gd_fact *kind = gd_entity_fact(e, "kind");
        const struct gd_fact *path = gd_entity_fact(e, "path");
        const struct gd_fact *detail = gd_entity_fact(e, "detail");
        const char *k = gd_fact_known_value(kind), *p = gd_fact_known_value(path);
        const char *d = gd_fact_known_value(detail);
        if (!k || !p)
            continue;
        struct gd_finding *f = NULL;
        if (strcmp(k, "symlink-loop") == 0) {
            f = gd_finding_add(r, "root.symlink-loop", GD_SEV_WARNING,
                               "%s cannot be opened: its symbolic links loop", p);
            gd_finding_set_why(f, "Every program that opens it fails with \"Too many levels of "
                                  "symbolic links\" (ELOOP); for a library that reads as "
                                  "\"cannot open shared object file\".");
            gd_finding_add_fix(f,
                               "Inspect the chain with `namei -l %s` and point the looping link "
                               "at the real file (`ln -sfn TARGET LINK`).",
                               p);
        } else if (strcmp(k, "symlink-escape") == 0) {
            f = gd_finding_add(r, "root.symlink-escape", GD_SEV_WARNING,
                               "A symbolic link on the way to %s climbs above the root", p);
            gd_finding_set_why(f, "Inside the image it resolves as if \"..\" stopped at \"/\", but "
                                  "copied or mounted elsewhere it points at the host's files; such "
                                  "links are usually made with one \"..\" too many.");
            gd_finding_add_fix(f, "Recreate the link relative to its own directory or as an "
                                  "absolute path inside the image.");
        } else if (strcmp(k, "unreadable") == 0) {
            f = gd_finding_add(r, "root.unreadable", GD_SEV_WARNING, "%s cannot be read (%s)", p,
                               d ? d : "error");
            gd_finding_set_why(f, "gpudoctor could not check what it holds, and programs running "
                                  "as this user cannot read it either.");
            gd_finding_add_fix(f,
                               "Check its permissions with `ls -l %s`, or run gpudoctor as the "
                               "user that runs the failing program.",
                               p);
        } else if (strcmp(k, "too-large") == 0) {
            f = gd_finding_add(r, "root.too-large", GD_SEV_WARNING,
                               "%s is far larger than such a file can be (%s)", p,
                               d ? d : "too large");
            gd_finding_set_why(f, "gpudoctor reads files of this kind up to a fixed size, so this "
                                  "one was not read; a file this size is damaged or not what its "
                                  "name says.");
            gd_finding_add_fix(f, "Look at it with `ls -l %s` and `head -c 200 %s`.", p, p);
        } else if (strcmp(k, "not-regular") == 0) {
            f = gd_finding_add(r, "root.not-regular", GD_SEV_WARNING, "%s is not a regular file",
                               p);
            gd_finding_set_why(f, "A device, FIFO or directory stands where a file is expected, "
                                  "so programs cannot read it.");
            gd_finding_add_fix(f, "Look at it with `ls -l %s` and replace it with the file.", p);
        }
        gd_finding_add_evidence(f, path);
        gd_finding_add_evidence(f, detail);
    }
    const struct gd_fact *dropped = gd_rf(r, "root", "anomalies.dropped");
    if (dropped) {
        struct gd_finding *f = gd_finding_add(r, "root.more-anomalies", GD_SEV_INFO,
                                              "More problems in the tree were found than listed");
        gd_finding_add_evidence(f, dropped);
    }
}
