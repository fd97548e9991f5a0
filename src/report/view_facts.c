/*
 * report/view_facts.c - the facts a view holds, each with the formats that must carry it
 * (view.h, om_view_facts). This is the one place that says which format says what: the
 * summaries (text, HTML, Markdown) and the machine formats (JSON, SARIF) carry every fact
 * of a model; CSV, a row per operator, the operators' facts; JUnit, a test case per
 * operator and finding, the verdicts; atc-precheck, ATC's fields only, none of them.
 */
#include <stdint.h>

#include "view.h"

#define F(x) (1u << OPMAP_REPORT_##x)
#define SUMMARIES (F(TEXT) | F(HTML) | F(MARKDOWN))
#define MODEL_FACTS (SUMMARIES | F(JSON) | F(SARIF))

static const char *const kind_names[OM_FACT_KIND_COUNT] = {
    "verdict", "reexport", "on_ascend", "next_step", "advice", "advice_place", "advice_line",
    "next_command", "source_place", "backward",
};

const char *om_fact_kind_name(int kind)
{
    return kind >= 0 && kind < OM_FACT_KIND_COUNT ? kind_names[kind] : "?";
}

/* An operator's facts: what it becomes (every row of it: text, JSON, HTML and CSV list every
 * operator; Markdown and SARIF those that need work), its next step, and the places of a
 * source finding that needs work (the first a summary shows). */
static int op_facts(const om_vmodel *m, size_t i, const om_vop *x, om_fact_fn fn, void *payload)
{
    const opmap_op *op = x->op;
    unsigned work = op->status >= OPMAP_OP_PARTIAL ? F(MARKDOWN) | F(SARIF) : 0;
    size_t k;
    int rc;
    if (!op->source && (rc = fn(payload, OM_FACT_ON_ASCEND, i, x->on_ascend,
                                F(TEXT) | F(JSON) | F(HTML) | F(CSV) | work)))
        return rc;
    if (x->next_step &&
        (rc = fn(payload, OM_FACT_NEXT_STEP, i, x->next_step, MODEL_FACTS | F(CSV))))
        return rc;
    /* a summary's row and CSV's say the backward's status; JSON and HTML what it runs too */
    if (op->bw_status && op->bw_status[0] &&
        (rc = fn(payload, OM_FACT_BACKWARD, i, op->bw_status,
                 F(TEXT) | F(JSON) | F(HTML) | F(CSV))))
        return rc;
    for (k = 0; op->source && work && op->locations && k < op->n_paths &&
                k < OM_VIEW_SOURCE_PLACES; k++)
        if (op->locations[k] &&
            (rc = fn(payload, OM_FACT_SOURCE_PLACE, i, op->locations[k],
                     MODEL_FACTS | (k == 0 ? F(CSV) : 0))))
            return rc;
    (void)m;
    return OPMAP_OK;
}

static int advice_facts(size_t i, const om_vadvice *x, om_fact_fn fn, void *payload)
{
    const om_advice *a = x->a;
    unsigned sarif = a->fused ? F(SARIF) : 0; /* a fused kernel is a finding of the gate */
    size_t k;
    int rc;
    if ((rc = fn(payload, OM_FACT_ADVICE, i, a->message, SUMMARIES | F(JSON) | sarif)))
        return rc;
    for (k = 0; k < a->n_places && k < OM_VIEW_ADVICE_PLACES; k++)
        if ((rc = fn(payload, OM_FACT_ADVICE_PLACE, i, a->places[k], SUMMARIES | F(JSON) | sarif)))
            return rc;
    for (k = 0; k < x->n_lines; k++)
        if ((rc = fn(payload, OM_FACT_ADVICE_LINE, i, x->lines[k], MODEL_FACTS)))
            return rc;
    return OPMAP_OK;
}

int om_view_facts(const om_view *v, om_fact_fn fn, void *payload)
{
    size_t i, k;
    int rc;
    for (i = 0; i < v->n_models; i++) {
        const om_vmodel *m = &v->models[i];
        if ((rc = fn(payload, OM_FACT_VERDICT, i, opmap_readiness_name(m->headline->readiness),
                     MODEL_FACTS | F(CSV) | F(JUNIT))))
            return rc;
        if (m->reexport && (rc = fn(payload, OM_FACT_REEXPORT, i, m->reexport, MODEL_FACTS)))
            return rc;
        for (k = 0; k < m->r->n_ops; k++)
            if ((rc = op_facts(m, i, &m->ops[k], fn, payload)))
                return rc;
        for (k = 0; k < m->n_advice; k++)
            if ((rc = advice_facts(i, &m->advice[k], fn, payload)))
                return rc;
        for (k = 0; k < m->n_next; k++)
            if ((rc = fn(payload, OM_FACT_NEXT_COMMAND, i, m->next[k].text, MODEL_FACTS)))
                return rc;
    }
    return OPMAP_OK;
}
