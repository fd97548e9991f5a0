/*
 * scan/graph_mode.c - graph mode (opmap_scan_options.mode = OPMAP_MODE_GRAPH): what
 * torchair's GE converters do with one ATen instance, from its row's `graph:` answer
 * (docs/table-format.md, "graph"). answer.c makes the instance the worse of that and its
 * eager answer.
 *
 * torch.compile with torchair converts each FX node through the converter registered for
 * its OpOverload; at the pinned commit a missing converter for an ATen operator is an error
 * (fx2ge_converter.py: get_or_auto_gen_converter refuses to generate one for PyTorch's own
 * operators), and a converter that raises fails the conversion, so both are rewrite.
 */
#include <stdio.h>
#include <string.h>

#include "scan_internal.h"

int om_graph_applies(const opmap_result *res)
{
    return res->mode == OPMAP_MODE_GRAPH && om_format_has(res->format, OPMAP_FORMAT_TRAIT_ATEN);
}

/* The repository and commit of a graph answer: its first source's, torchair's registry. */
static void registry(const opmap_table *t, const om_graph *gr, const char **repo,
                     const char **commit)
{
    size_t i;
    *repo = "torchair";
    *commit = "?";
    for (i = 0; gr->ev.n_sources && i < t->n_sources; i++)
        if (strcmp(t->sources[i].id, gr->ev.sources[0]) == 0) {
            if (t->sources[i].repo)
                *repo = t->sources[i].repo;
            if (t->sources[i].commit)
                *commit = t->sources[i].commit;
            return;
        }
}

/* The overload a torch.export node names (attribute `overload`), or NULL. */
static const char *overload_of(const ir_node *n)
{
    const ir_attr *a = ir_node_attr(n, "overload");
    return a && a->type == IR_ATTR_STRING && a->s.size ? (const char *)a->s.data : NULL;
}

static const om_graph_ov *find_ov(const om_graph *gr, const char *name)
{
    size_t i;
    for (i = 0; i < gr->n_ovs; i++)
        if (strcmp(gr->ovs[i].name, name) == 0)
            return &gr->ovs[i];
    return NULL;
}

/* What a converter that raises, or none, means for the model, and what to do. */
static const char *const fails =
    "converting a torch.compile graph that holds it raises (torchair has no per-operator "
    "eager fallback): keep it out of the compiled region, or register a converter "
    "(torchair.register_fx_node_ge_converter)";

/* A node of a torch.export program: the converter of its own overload decides. */
static int by_overload(const opmap_table *t, const opmap_row *row, const char *ov,
                       om_graph_verdict *out)
{
    const opmap_row *by = row;
    const om_graph_ov *o;
    const char *repo, *commit, *op = row->op;
    if (row->graph.via) {
        const opmap_row *base = opmap_table_lookup(t, "aten", row->graph.via, 0);
        if (base && base->graph.status) {
            by = base;
            op = row->graph.via;
        }
    }
    registry(t, &row->graph, &repo, &commit);
    o = find_ov(&by->graph, ov);
    if (o && o->status == OM_GRAPH_IMPLEMENTED)
        return 0;
    snprintf(out->actual, sizeof(out->actual), "graph: aten::%s.%s %s", op, ov,
             !o ? "has no converter" : o->status == OM_GRAPH_STUB ? "stub" : "partial");
    out->status = o && o->status == OM_GRAPH_PARTIAL ? OPMAP_OP_PARTIAL : OPMAP_OP_REWRITE;
    if (o && o->status == OM_GRAPH_PARTIAL)
        snprintf(out->message, sizeof(out->message), "graph mode: torchair's converter for "
                 "aten::%s.%s raises for some inputs (%s %.12s)", op, ov, repo, commit);
    else
        snprintf(out->message, sizeof(out->message), "graph mode: %s aten::%s.%s (%s %.12s): %s",
                 o ? "torchair's converter only raises for" : "torchair registers no converter for",
                 op, ov, repo, commit, fails);
    return 1;
}

/* Whether argument a of a TorchScript call fits kind k of a signature ("T", "N?=", ...):
 * only what the call shows is checked (a constant's kind, None, a run-time value's type);
 * `loose` lets a tensor pass for a number (TorchScript's implicit conversion of a 0-dim
 * tensor), tried only when no overload fits strictly. */
static int arg_fits(const ir_attr *a, const char *k, size_t klen, int loose)
{
    int opt = memchr(k, '?', klen) != NULL;
    char kind = klen ? k[0] : 'O';
    if (a->arg_kind == IR_ARG_NONE)
        return opt;
    switch (a->type) {
    case IR_ATTR_INT:
    case IR_ATTR_FLOAT:
        return kind == 'N';
    case IR_ATTR_STRING:
        return kind == 's';
    case IR_ATTR_INTS:
    case IR_ATTR_FLOATS:
        return kind == 'L';
    default:
        break;
    }
    switch (a->arg_type) {
    case IR_AT_TENSOR:
        return kind == 'T' || (loose && kind == 'N');
    case IR_AT_NUMBER:
        return kind == 'N';
    case IR_AT_LIST:
        return kind == 'L';
    case IR_AT_STRING:
        return kind == 's';
    default:
        return 1;
    }
}

/* The call's arguments against a signature: each fits its kind, and the ones the call
 * leaves out (an archive's printed call gives no defaulted argument) have defaults. */
static int sig_fits(const char *sig, const ir_node *n, int loose)
{
    uint32_t i = 0;
    const char *p = sig;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (i < n->n_args ? !arg_fits(&n->args[i], p, len, loose) : !memchr(p, '=', len))
            return 0;
        i++;
        p += len;
        if (*p == ',')
            p++;
    }
    return i >= n->n_args;
}

/*
 * The overloads a TorchScript call can be, by its arguments against the counted overloads'
 * signatures (`sigs`), strictly first: how many there are and the worst status among them;
 * 0 when the row has no signatures or none fits (then the row's answer stands).
 */
static size_t fitting(const om_graph *gr, const ir_node *n, int *worst, const char **one)
{
    size_t i, fits = 0;
    int loose;
    *worst = OM_GRAPH_IMPLEMENTED;
    for (loose = 0; loose < 2 && !fits; loose++)
        for (i = 0; i < gr->n_ovs; i++) {
            const om_graph_ov *o = &gr->ovs[i];
            if (!o->counted || !o->sig || !n->args || !sig_fits(o->sig, n, loose))
                continue;
            if (!fits++ || o->status > *worst)
                *one = o->name;
            if (o->status > *worst)
                *worst = o->status;
        }
    return fits;
}

/* A TorchScript node names no overload: the answer of the overloads its arguments fit, else
 * the row's answer over the overloads counted. */
static int by_operator(const opmap_table *t, const opmap_row *row, const ir_node *n,
                       om_graph_verdict *out)
{
    const om_graph *gr = &row->graph;
    const char *repo, *commit, *name = om_graph_status_name(gr->status), *one = NULL;
    int worst;
    size_t fits;
    registry(t, gr, &repo, &commit);
    if (gr->status == OM_GRAPH_IMPLEMENTED)
        return 0;
    if (gr->status == OM_GRAPH_PARTIAL && (fits = fitting(gr, n, &worst, &one)) > 0) {
        if (worst == OM_GRAPH_IMPLEMENTED)
            return 0;  /* the call is one of the overloads torchair converts */
        snprintf(out->actual, sizeof(out->actual), "graph: aten::%s.%s %s%s", row->op, one,
                 worst == OM_GRAPH_STUB ? "stub" : "partial",
                 fits > 1 ? " (of the overloads its arguments fit)" : "");
        out->status = worst == OM_GRAPH_STUB ? OPMAP_OP_REWRITE : OPMAP_OP_PARTIAL;
        snprintf(out->message, sizeof(out->message), "graph mode: the call's arguments fit "
                 "aten::%s.%s, whose torchair converter %s (%s %.12s)", row->op, one,
                 worst == OM_GRAPH_STUB ? "only raises" : "raises for some inputs", repo, commit);
        return 1;
    }
    snprintf(out->actual, sizeof(out->actual), "graph: torchair %s%s%s", name,
             gr->via ? " as aten::" : "", gr->via ? gr->via : "");
    if (gr->status == OM_GRAPH_PARTIAL) {
        out->status = OPMAP_OP_PARTIAL;
        snprintf(out->message, sizeof(out->message), "graph mode: torchair converts aten::%s "
                 "for some overloads or inputs only (%s %.12s): %s", row->op, repo, commit,
                 gr->note ? gr->note : "");
    } else {
        out->status = OPMAP_OP_REWRITE;
        snprintf(out->message, sizeof(out->message), "graph mode: %s aten::%s (%s %.12s): %s",
                 gr->status == OM_GRAPH_STUB ? "every converter torchair registers only raises for"
                                             : "torchair registers no converter for",
                 row->op, repo, commit, fails);
    }
    return 1;
}

int om_graph_verdict_of(const opmap_table *t, const opmap_row *row, const ir_node *n,
                        om_graph_verdict *out)
{
    const char *ov = overload_of(n);
    if (!row || !row->graph.status || row->status == OPMAP_OP_STRUCTURAL ||
        (!ov && ir_node_scalar_only(n)))
        return 0;
    out->ev = &row->graph.ev;
    if (row->graph.status == OM_GRAPH_DECOMPOSED) {
        const char *repo, *commit;
        registry(t, &row->graph, &repo, &commit);
        out->status = -1;
        snprintf(out->actual, sizeof(out->actual), "graph: decomposed");
        snprintf(out->message, sizeof(out->message), "graph mode: PyTorch decomposes aten::%s "
                 "(CompositeImplicitAutograd) before torchair converts the graph (%s %.12s): "
                 "the operators it becomes are answered, not a converter of its own",
                 row->op, repo, commit);
        return 1;
    }
    return ov ? by_overload(t, row, ov, out) : by_operator(t, row, n, out);
}
