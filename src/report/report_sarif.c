/*
 * report/report_sarif.c - SARIF 2.1.0 for code-scanning dashboards (GitHub, GitLab...):
 * one rule per finding kind, one result per finding with the model file as the artifact
 * and the node path as the logical location. Waived findings carry a suppression.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../scan/result_internal.h"
#include "report_internal.h"

static const char *const rule_text[OPMAP_FAIL_KIND_COUNT] = {
    "The operator has no row in the compatibility table: nothing says it runs on Ascend.",
    "The operator has no Ascend implementation: the model must be changed.",
    "The operator runs on Ascend with limits (dtypes, attributes, chips) or caveats.",
    "Results may differ numerically on Ascend.",
    "The operator runs on AI CPU, the host or torch_npu's CPU fallback.",
    "Dynamic shapes recompile the graph on Ascend.",
    "Random number streams differ from CUDA's.",
    "inf/nan semantics differ on Ascend.",
    "Not bit-reproducible run to run on Ascend.",
    "Deprecated in torch_npu.",
    "float64, complex or uint64 values, which Ascend largely lacks kernels for.",
    "The migration estimate is over the allowed effort.",
    "An external-data side file is missing, shorter than its tensors, or outside the model's "
    "directory.",
};

static char *uri(const char *path, char *buf, size_t size)
{
    if (path[0] == '/')
        snprintf(buf, size, "file://%s", path);
    else
        snprintf(buf, size, "%s", path);
    return buf;
}

int om_report_sarif(const om_report_in *in, om_out *out)
{
    cJSON *root = cJSON_CreateObject(), *runs, *run, *driver, *rules, *results;
    size_t i, n = opmap_verdict_finding_count(in->verdict);
    char buf[4200];
    char *text;
    unsigned k;
    if (!root)
        return OPMAP_ENOMEM;
    cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    cJSON_AddStringToObject(root, "version", "2.1.0");
    runs = cJSON_AddArrayToObject(root, "runs");
    run = cJSON_CreateObject();
    cJSON_AddItemToArray(runs, run);
    driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "opmap");
    cJSON_AddStringToObject(driver, "semanticVersion", opmap_version_string());
    rules = cJSON_AddArrayToObject(driver, "rules");
    for (k = 0; k < OPMAP_FAIL_KIND_COUNT; k++) {
        cJSON *r = cJSON_CreateObject(), *d;
        if (!r)
            break;
        snprintf(buf, sizeof(buf), "opmap/%s", opmap_fail_kind_name(k));
        cJSON_AddStringToObject(r, "id", buf);
        cJSON_AddStringToObject(r, "name", opmap_fail_kind_name(k));
        d = cJSON_AddObjectToObject(r, "shortDescription");
        cJSON_AddStringToObject(d, "text", rule_text[k]);
        cJSON_AddItemToArray(rules, r);
    }
    results = cJSON_AddArrayToObject(run, "results");
    for (i = 0; i < n; i++) {
        opmap_finding f;
        cJSON *r = cJSON_CreateObject(), *loc, *phys, *logical, *props;
        unsigned kind;
        if (!r)
            break;
        opmap_verdict_finding(in->verdict, i, &f);
        kind = (unsigned)__builtin_ctz(f.kind);
        snprintf(buf, sizeof(buf), "opmap/%s", opmap_fail_kind_name(kind));
        cJSON_AddStringToObject(r, "ruleId", buf);
        cJSON_AddNumberToObject(r, "ruleIndex", kind);
        cJSON_AddStringToObject(r, "level", f.fails ? "error" : f.waived ? "note" : "warning");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "message"), "text", f.message);
        loc = cJSON_CreateObject();
        cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "locations"), loc);
        phys = cJSON_AddObjectToObject(loc, "physicalLocation");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri",
                                uri(f.model[0] ? f.model : ".", buf, sizeof(buf)));
        if (f.node[0]) {
            logical = cJSON_CreateObject();
            cJSON_AddStringToObject(logical, "fullyQualifiedName", f.node);
            cJSON_AddStringToObject(logical, "kind", "element");
            cJSON_AddItemToArray(cJSON_AddArrayToObject(loc, "logicalLocations"), logical);
        }
        if (f.waived) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "kind", "external");
            cJSON_AddStringToObject(s, "status", f.waiver_expired ? "rejected" : "accepted");
            snprintf(buf, sizeof(buf), "%s (owner %s, expires %s)", f.waiver_reason,
                     f.waiver_owner, f.waiver_expires);
            cJSON_AddStringToObject(s, "justification", buf);
            cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "suppressions"), s);
        }
        props = cJSON_AddObjectToObject(r, "properties");
        if (f.op[0]) {
            snprintf(buf, sizeof(buf), "%s::%s", f.domain, f.op);
            cJSON_AddStringToObject(props, "operator", buf);
        }
        cJSON_AddNumberToObject(props, "instances", (double)f.instances);
        cJSON_AddItemToArray(results, r);
    }
    text = (in->flags & OPMAP_REPORT_COMPACT) ? cJSON_PrintUnformatted(root) : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return OPMAP_ENOMEM;
    om_out_str(out, text);
    om_out_str(out, "\n");
    cJSON_free(text);
    return OPMAP_OK;
}
