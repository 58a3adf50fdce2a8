/*
 * Keras: the backend Keras 3 will import (KERAS_BACKEND, keras.json, the default) against what
 * the environment holds, and Keras 3 beside a TensorFlow that expects Keras 2 (tf.keras).
 */
#include "rules/frameworks.h"

#include "core/version.h"
#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

static const struct gd_kb_row *backend_row(const struct gd_kb *kb, const char *major,
                                           const char *backend)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "frameworks");
    for (size_t i = 0; t && i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind"), *m = gd_kb_str(row, "keras_major");
        const char *b = gd_kb_str(row, "backend");
        if (kind && strcmp(kind, "keras_backend") == 0 && m && strcmp(m, major) == 0 && b &&
            strcmp(b, backend) == 0)
            return row;
    }
    return NULL;
}

static const struct gd_kb_row *first_row(const struct gd_kb *kb, const char *kind)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "frameworks");
    for (size_t i = 0; t && i < gd_kb_row_count(t); i++) {
        const char *k = gd_kb_str(gd_kb_row_at(t, i), "kind");
        if (k && strcmp(k, kind) == 0)
            return gd_kb_row_at(t, i);
    }
    return NULL;
}

/* Frameworks the KB knows by name: the imports a backend needs that can be checked. */
static bool is_framework_name(const char *name)
{
    return strcmp(name, "tensorflow") == 0 || strcmp(name, "jax") == 0 ||
           strcmp(name, "torch") == 0;
}

/* The framework entity that decides whether `name` runs on the GPU: jaxlib for jax. */
static const struct gd_entity *runtime_of(const struct gd_report *r, const struct gd_entity *env,
                                          const char *name)
{
    if (strcmp(name, "jax") == 0)
        return gd_fw_find(r, env, "jax", "jaxlib");
    return gd_fw_find(r, env, name, NULL);
}

static void backend(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *keras,
                    const struct gd_entity *env, bool gpu)
{
    const char *name = gd_fw_val(keras, "backend"), *major = gd_fw_val(keras, "major");
    if (!name || !major)
        return;
    const struct gd_kb_row *row = backend_row(kb, major, name);
    if (!row) {
        struct gd_finding *f = gd_finding_add(r, "keras.backend-unknown", GD_SEV_ERROR,
                                              "Keras %s is set to the backend \"%s\", which it "
                                              "does not have",
                                              gd_fw_val(keras, "version"), name);
        gd_finding_set_why(f, "`import keras` stops with a ValueError naming the backend.");
        gd_finding_add_evidence(f, gd_entity_fact(keras, "backend"));
        gd_finding_add_fix(f, "Set KERAS_BACKEND (or \"backend\" in keras.json) to tensorflow, "
                              "jax or torch.");
        return;
    }
    for (size_t k = 0; k < gd_kb_list_len(row, "imports"); k++) {
        const char *need = gd_kb_list_at(row, "imports", k);
        if (!need || !is_framework_name(need))
            continue;
        const struct gd_entity *fw = runtime_of(r, env, need);
        if (!fw) {
            struct gd_finding *f =
                gd_finding_add(r, "keras.backend-not-installed", GD_SEV_ERROR,
                               "Keras %s uses the %s backend, but %s is not installed in %s",
                               gd_fw_val(keras, "version"), name, need, gd_fw_val(keras, "env"));
            gd_finding_set_why(f,
                               "`import keras` fails with ModuleNotFoundError: No module named "
                               "'%s'.",
                               need);
            gd_finding_add_evidence(f, gd_entity_fact(keras, "backend"));
            gd_finding_add_evidence(f, gd_entity_fact(keras, "backend.from"));
            gd_finding_add_fix(f,
                               "Install it in that environment (`pip install %s`, with its "
                               "CUDA build for the GPU), or point KERAS_BACKEND at a backend "
                               "that is installed.",
                               strcmp(need, "jax") == 0 ? "'jax[cuda12]'" : need);
            continue;
        }
        const char *build = gd_fw_val(fw, "build");
        if (gpu && build && strcmp(build, "cpu") == 0) {
            struct gd_finding *f =
                gd_finding_add(r, "keras.backend-cpu-only", GD_SEV_WARNING,
                               "Keras %s runs on %s, a CPU-only build: models train on the CPU",
                               gd_fw_val(keras, "version"), gd_fw_val(fw, "dist"));
            gd_finding_set_why(f, "The backend decides the device; a CPU-only build never uses the "
                                  "GPU this machine has.");
            gd_finding_add_evidence(f, gd_entity_fact(keras, "backend"));
            gd_finding_add_evidence(f, gd_entity_fact(fw, "build"));
            gd_finding_add_fix(f,
                               "Install the CUDA build of %s (see framework.cpu-only-build), or "
                               "choose a backend that has one.",
                               need);
        }
    }
}

static bool version_below(const char *version, const char *bound)
{
    struct gd_version v, b;
    return version && bound && gd_version_parse(version, &v) == GD_OK &&
           gd_version_parse(bound, &b) == GD_OK && gd_version_cmp_parts(&v, &b, 2) < 0;
}

static void tensorflow_pairing(struct gd_report *r, const struct gd_kb *kb,
                               const struct gd_entity *keras, const struct gd_entity *env)
{
    const struct gd_kb_row *row = first_row(kb, "tf_keras");
    const struct gd_entity *tf = gd_fw_find(r, env, "tensorflow", NULL);
    const char *major = gd_fw_val(keras, "major");
    if (!row || !tf || !major)
        return;
    const char *min = gd_kb_str(row, "version_min"), *tfv = gd_fw_val(tf, "version");
    if (strcmp(major, "3") == 0 && version_below(tfv, min)) {
        struct gd_finding *f =
            gd_finding_add(r, "keras.keras3-with-old-tensorflow", GD_SEV_ERROR,
                           "Keras %s is installed beside TensorFlow %s, which expects Keras 2",
                           gd_fw_val(keras, "version"), tfv);
        gd_finding_set_why(f,
                           "TensorFlow before %s was written for Keras 2: tf.keras becomes "
                           "Keras 3 or fails to import, and Keras 2 code breaks.",
                           min);
        gd_finding_add_evidence(f, gd_entity_fact(keras, "version"));
        gd_finding_add_evidence(f, gd_entity_fact(tf, "version"));
        gd_finding_add_fix(f,
                           "Either `pip install 'keras<3'` (the Keras 2 of that TensorFlow) or "
                           "upgrade TensorFlow to %s or later, which is built for Keras 3.",
                           min);
    }
    /* TF_USE_LEGACY_KERAS asks TensorFlow 2.16+ for Keras 2 from tf-keras. */
    const char *var = gd_kb_str(row, "legacy_env"), *legacy = gd_kb_str(row, "legacy_dist");
    const char *value = var ? gd_rv(r, "env", var) : NULL;
    bool on = false;
    for (size_t k = 0; value && k < gd_kb_list_len(row, "legacy_values"); k++)
        on = on || strcmp(value, gd_kb_list_at(row, "legacy_values", k)) == 0;
    if (on && legacy && !version_below(tfv, min) && !gd_fw_find(r, env, NULL, legacy)) {
        struct gd_finding *f =
            gd_finding_add(r, "keras.tf-keras-missing", GD_SEV_ERROR,
                           "%s=%s asks TensorFlow %s for Keras 2, but %s is not installed", var,
                           value, tfv, legacy);
        gd_finding_set_why(f, "TensorFlow then imports tf_keras for tf.keras and fails.");
        gd_finding_add_evidence(f, gd_rf(r, "env", var));
        gd_finding_add_evidence(f, gd_entity_fact(tf, "version"));
        gd_finding_add_fix(f,
                           "`pip install '%s~=%s'` (the tf-keras of the same minor as "
                           "TensorFlow), or unset %s.",
                           legacy, tfv, var);
    }
}

void gd_rule_keras(struct gd_report *r, const struct gd_kb *kb)
{
    bool gpu = gd_fw_gpu_present(r);
    size_t n_keras;
    struct gd_entity *const *all_keras = gd_report_kind(r, "keras", &n_keras);
    for (size_t i = 0; i < n_keras; i++) {
        const struct gd_entity *keras = all_keras[i];
        char id[4200];
        snprintf(id, sizeof id, "python_env:%s", gd_fw_val(keras, "env"));
        const struct gd_entity *env = gd_report_entity(r, id);
        if (!env)
            continue;
        backend(r, kb, keras, env, gpu);
        tensorflow_pairing(r, kb, keras, env);
    }
}
