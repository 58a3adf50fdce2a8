/* A --kb override table that could not be used. */
#include "rules/rules.h"

#include <string.h>

void gd_rule_kb(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    const struct gd_entity *e = gd_report_entity(r, "kb");
    for (size_t i = 0; e && i < gd_entity_fact_count(e); i++) {
        const struct gd_fact *problem = gd_entity_fact_at(e, i);
        struct gd_finding *f =
            gd_finding_add(r, "kb.table-invalid", GD_SEV_WARNING,
                           "A knowledge-base table was not used: %s", gd_fact_known_value(problem));
        gd_finding_set_why(f, "Findings that need this table use the embedded version instead "
                              "of the one given with --kb.");
        gd_finding_add_evidence(f, problem);
        gd_finding_add_fix(f, "Correct the file (format in docs/kb.md) or remove it from the --kb "
                              "directory.");
    }
}
