/*
 * policy/diff.c - "did this change make the model harder to migrate?": two JSON reports
 * compared operator by operator (opmap diff OLD.json NEW.json).
 *
 * Models are paired by file path; when each report holds one model they are paired
 * whatever their paths (the same model from two branches). An operator is
 * (domain, op_type); its findings are its status kind and its flags. A finding the
 * policy fails on that the new report has and the old one had not counts as failing, and
 * so does every file the new report lists as unreadable (its "errors").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/out.h"
#include "policy_internal.h"

typedef struct dop {
    const char *domain, *op, *status;
    unsigned kinds;      /* OPMAP_FAIL_* of its status and flags */
    double instances;
} dop;

static unsigned status_kind(const char *s)
{
    if (!s)
        return 0;
    if (strcmp(s, "unmapped") == 0)
        return OPMAP_FAIL_UNMAPPED;
    if (strcmp(s, "rewrite") == 0)
        return OPMAP_FAIL_REWRITE;
    if (strcmp(s, "partial") == 0)
        return OPMAP_FAIL_PARTIAL;
    return 0;
}

static int read_op(const cJSON *o, dop *d)
{
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(o, "flags"), *f;
    unsigned bits;
    d->domain = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "domain"));
    d->op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "op_type"));
    d->status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "status"));
    d->instances = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "instances"));
    if (!d->domain || !d->op || !d->status)
        return 0;
    d->kinds = status_kind(d->status);
    cJSON_ArrayForEach(f, flags) {
        if (cJSON_IsString(f) && opmap_fail_on_parse(f->valuestring, &bits, NULL) == OPMAP_OK)
            d->kinds |= bits;
    }
    return 1;
}

static const cJSON *find_op(const cJSON *ops, const dop *d)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, ops) {
        dop e;
        if (read_op(o, &e) && strcmp(e.domain, d->domain) == 0 && strcmp(e.op, d->op) == 0)
            return o;
    }
    return NULL;
}

static const char *file_of(const cJSON *m)
{
    const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "file"));
    return f ? f : "";
}

static const cJSON *pair(const cJSON *models, const cJSON *m, int single)
{
    const cJSON *o;
    if (single)
        return cJSON_GetArrayItem(models, 0);
    cJSON_ArrayForEach(o, models)
        if (strcmp(file_of(o), file_of(m)) == 0)
            return o;
    return NULL;
}

static cJSON *parse_report(const char *text, size_t size, const char *which, opmap_error *err)
{
    const char *end = NULL, *schema;
    /* ParseWithLengthOpts reports where parsing stopped without the global error pointer */
    cJSON *r = cJSON_ParseWithLengthOpts(text, size, &end, 0);
    if (!r) {
        om_fail(err, OPMAP_EFORMAT, which, "not JSON (near byte %zu)",
                (size_t)(end && end >= text ? end - text : 0));
        return NULL;
    }
    schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "schema"));
    if (!schema || strncmp(schema, "opmap-report/", 13) != 0 ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "models"))) {
        om_fail(err, OPMAP_EFORMAT, which, "not an opmap JSON report (no \"schema\": "
                                           "\"opmap-report/...\" and \"models\")");
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

typedef struct differ {
    om_out *o;
    int json;
    unsigned fail_on;
    size_t added, removed, changed, failing, unreadable;
    cJSON *jadded, *jremoved, *jchanged, *junreadable;
} differ;

static void line(differ *d, const char *model, char sign, const dop *old, const dop *now)
{
    const dop *x = now ? now : old;
    unsigned fresh = now ? now->kinds & ~(old ? old->kinds : 0) & d->fail_on : 0;
    if (fresh)
        d->failing++;
    if (d->json) {
        cJSON *e = cJSON_CreateObject(), *arr = sign == '+' ? d->jadded
                                               : sign == '-' ? d->jremoved : d->jchanged;
        if (!e)
            return;
        cJSON_AddStringToObject(e, "model", model);
        cJSON_AddStringToObject(e, "domain", x->domain);
        cJSON_AddStringToObject(e, "op_type", x->op);
        if (old)
            cJSON_AddStringToObject(e, sign == '~' ? "old_status" : "status", old->status);
        if (now)
            cJSON_AddStringToObject(e, sign == '~' ? "new_status" : "status", now->status);
        cJSON_AddNumberToObject(e, "instances", x->instances);
        cJSON_AddBoolToObject(e, "fails", fresh != 0);
        cJSON_AddItemToArray(arr, e);
        return;
    }
    om_out_printf(d->o, "  %c ", sign);
    om_out_term(d->o, x->domain);
    om_out_str(d->o, "::");
    om_out_term(d->o, x->op);
    om_out_str(d->o, "  ");
    if (sign == '~') {
        om_out_term(d->o, old->status);
        om_out_str(d->o, " -> ");
    }
    om_out_term(d->o, x->status);
    om_out_printf(d->o, " (%.0f instance%s)%s\n", x->instances, x->instances == 1 ? "" : "s",
                  fresh ? "  <- the policy fails on this" : "");
}

static void diff_model(differ *d, const cJSON *old_m, const cJSON *new_m)
{
    const cJSON *old_ops = old_m ? cJSON_GetObjectItemCaseSensitive(old_m, "operators") : NULL;
    const cJSON *new_ops = new_m ? cJSON_GetObjectItemCaseSensitive(new_m, "operators") : NULL;
    const char *model = file_of(new_m ? new_m : old_m);
    const cJSON *o;
    if (!d->json) {
        om_out_str(d->o, new_m && old_m ? "model " : new_m ? "model added " : "model removed ");
        om_out_term(d->o, model);
        om_out_str(d->o, "\n");
    }
    cJSON_ArrayForEach(o, new_ops) {
        dop now, old;
        const cJSON *prev;
        if (!read_op(o, &now))
            continue;
        prev = find_op(old_ops, &now);
        if (!prev || !read_op(prev, &old)) {
            d->added++;
            line(d, model, '+', NULL, &now);
        } else if (strcmp(old.status, now.status) != 0 || old.kinds != now.kinds) {
            d->changed++;
            line(d, model, '~', &old, &now);
        }
    }
    cJSON_ArrayForEach(o, old_ops) {
        dop old;
        if (read_op(o, &old) && !find_op(new_ops, &old)) {
            d->removed++;
            line(d, model, '-', &old, NULL);
        }
    }
}

int opmap_diff_reports(opmap_ctx *ctx, const char *old_json, size_t old_size,
                       const char *new_json, size_t new_size, const opmap_policy *policy,
                       opmap_report_format format, opmap_write_fn write, void *payload,
                       size_t *failing, opmap_error *err)
{
    cJSON *old_r, *new_r, *root = NULL;
    const cJSON *old_models, *new_models, *m;
    differ d;
    om_out o;
    int single, rc = OPMAP_OK;
    (void)ctx;
    om_err_clear(err);
    if (!old_json || !new_json || !write || !failing)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_diff_reports: NULL argument");
    if (format != OPMAP_REPORT_TEXT && format != OPMAP_REPORT_JSON)
        return om_fail(err, OPMAP_EINVAL, NULL, "diff writes text or json");
    if (!(old_r = parse_report(old_json, old_size, "old report", err)))
        return OPMAP_EFORMAT;
    if (!(new_r = parse_report(new_json, new_size, "new report", err))) {
        cJSON_Delete(old_r);
        return OPMAP_EFORMAT;
    }
    memset(&d, 0, sizeof(d));
    om_out_init(&o, write, payload);
    d.o = &o;
    d.json = format == OPMAP_REPORT_JSON;
    d.fail_on = policy && policy->fail_on ? policy->fail_on : OPMAP_FAIL_UNMAPPED;
    if (d.json) {
        root = cJSON_CreateObject();
        d.jadded = cJSON_AddArrayToObject(root, "added");
        d.jremoved = cJSON_AddArrayToObject(root, "removed");
        d.jchanged = cJSON_AddArrayToObject(root, "changed");
        if (!root || !d.jadded || !d.jremoved || !d.jchanged)
            rc = OPMAP_ENOMEM;
    }
    old_models = cJSON_GetObjectItemCaseSensitive(old_r, "models");
    new_models = cJSON_GetObjectItemCaseSensitive(new_r, "models");
    single = cJSON_GetArraySize(old_models) == 1 && cJSON_GetArraySize(new_models) == 1;
    cJSON_ArrayForEach(m, new_models)
        if (rc == OPMAP_OK)
            diff_model(&d, pair(old_models, m, single), m);
    cJSON_ArrayForEach(m, old_models)
        if (rc == OPMAP_OK && !single && !pair(new_models, m, 0))
            diff_model(&d, m, NULL);
    /* a file the new scan could not read hides whatever it holds: it always fails */
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(new_r, "errors")) {
        const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "file"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "message"));
        if (rc != OPMAP_OK || !file)
            continue;
        d.failing++;
        d.unreadable++;
        if (d.json) {
            cJSON *e = cJSON_CreateObject();
            if (!d.junreadable)
                d.junreadable = cJSON_AddArrayToObject(root, "unreadable");
            if (!e || !d.junreadable || !cJSON_AddItemToArray(d.junreadable, e)) {
                cJSON_Delete(e);
                rc = OPMAP_ENOMEM;
                continue;
            }
            cJSON_AddStringToObject(e, "file", file);
            cJSON_AddStringToObject(e, "message", msg ? msg : "");
        } else {
            om_out_str(&o, "unreadable ");
            om_out_term(&o, file);
            om_out_str(&o, ": ");
            om_out_term(&o, msg ? msg : "");
            om_out_str(&o, "\n");
        }
    }
    if (rc == OPMAP_OK && d.json) {
        char *text;
        cJSON_AddStringToObject(root, "schema", "opmap-diff/1");
        cJSON_AddNumberToObject(root, "failing", (double)d.failing);
        if ((text = cJSON_Print(root))) {
            om_out_str(&o, text);
            om_out_str(&o, "\n");
            cJSON_free(text);
        } else {
            rc = OPMAP_ENOMEM;
        }
    } else if (rc == OPMAP_OK) {
        om_out_printf(&o, "%zu added, %zu removed, %zu changed; %zu new finding%s the policy "
                          "fails on\n", d.added, d.removed, d.changed, d.failing,
                      d.failing == 1 ? "" : "s");
    }
    cJSON_Delete(root);
    cJSON_Delete(old_r);
    cJSON_Delete(new_r);
    if (rc == OPMAP_OK)
        rc = om_out_finish(&o);
    if (rc != OPMAP_OK)
        return om_fail(err, rc, NULL, "%s while writing the diff", opmap_status_str(rc));
    *failing = d.failing;
    return OPMAP_OK;
}
