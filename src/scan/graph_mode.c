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
    return res->mode == OPMAP_MODE_GRAPH &&
           (res->format == OPMAP_FORMAT_TORCHSCRIPT ||
            res->format == OPMAP_FORMAT_TORCHSCRIPT_GRAPH ||
            res->format == OPMAP_FORMAT_TORCH_EXPORT);
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

/* A TorchScript node names no overload: the row's answer over the overloads counted. */
static int by_operator(const opmap_table *t, const opmap_row *row, om_graph_verdict *out)
{
    const om_graph *gr = &row->graph;
    const char *repo, *commit, *name = om_graph_status_name(gr->status);
    registry(t, gr, &repo, &commit);
    if (gr->status == OM_GRAPH_IMPLEMENTED)
        return 0;
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
    return ov ? by_overload(t, row, ov, out) : by_operator(t, row, out);
}
