/*
 * policy/waiver_index.c - which waiver covers a finding, without trying every waiver on
 * every node path (see policy_internal.h).
 *
 * Waivers are grouped by what a finding names exactly: (model, domain, op, kind), each
 * either a literal or "any". A finding looks up at most 16 groups. Inside a group, the
 * node patterns sit in a byte trie of their literal part (all of a literal pattern, the
 * text before the first '*' or '?' of a glob), so each node path walks the trie once and
 * meets only the patterns whose literal prefix it starts with; only those are compared.
 * The first waiver in file order wins, as when they were tried one by one: groups and trie
 * nodes keep their waivers in file order, and a search stops at the best index found.
 */
#include <string.h>

#include "core/hash.h"
#include "policy_internal.h"

#define NONE UINT32_MAX

typedef struct wx_group {
    const char *model, *domain, *op;   /* model, domain: NULL for any */
    unsigned kind;                     /* 0: any */
    uint32_t any_node;                 /* first waiver without a node pattern */
    uint32_t root;                     /* trie of node patterns, NONE: none */
} wx_group;

typedef struct wx_pat {
    uint32_t w;       /* waiver index */
    uint32_t next;    /* next pattern ending at the same trie node, in file order */
    uint32_t rest;    /* offset in the pattern of the first wildcard; NONE: a literal */
} wx_pat;

typedef struct wx_node {
    uint32_t first, last;   /* patterns whose literal part ends here */
} wx_node;

static int is_literal(const char *p)
{
    return !strpbrk(p, "*?");
}

static int all_stars(const char *p)
{
    return p[strspn(p, "*")] == '\0';
}

/* Grows a table to `need` slots of `elem` bytes (zeroed); 0 on failure. */
static int grow(om_mem *mem, void **data, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap : 16, bytes;
    void *nd;
    while (ncap < need)
        ncap *= 2;
    if (ncap == *cap)
        return 1;
    if (!om_mul_ok(ncap, elem, &bytes) || !(nd = om_realloc(mem, *data, *cap * elem, bytes)))
        return 0;
    memset((char *)nd + *cap * elem, 0, (ncap - *cap) * elem);
    *data = nd;
    *cap = ncap;
    return 1;
}

static int eq_opt(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static uint64_t group_hash(const char *model, const char *domain, const char *op, unsigned kind)
{
    uint64_t h = OM_HASH_SEED;
    h = om_hash_byte(model ? om_hash_str(om_hash_byte(h, 1), model) : h, 0xff);
    h = om_hash_byte(domain ? om_hash_str(om_hash_byte(h, 1), domain) : h, 0xff);
    h = om_hash_byte(om_hash_str(h, op), 0xff);
    return om_hash_byte(h, (unsigned char)kind) ^ (uint64_t)kind << 40;
}

/* The slot of a group in the open-addressed table (holding its index + 1, or 0). */
static uint32_t *group_slot(om_widx *x, const char *model, const char *domain, const char *op,
                            unsigned kind)
{
    size_t mask = x->gslots_cap - 1, h = (size_t)group_hash(model, domain, op, kind) & mask;
    for (;; h = (h + 1) & mask) {
        uint32_t *s = &x->gslots[h];
        const wx_group *g;
        if (!*s)
            return s;
        g = &((const wx_group *)x->groups)[*s - 1];
        if (g->kind == kind && strcmp(g->op, op) == 0 && eq_opt(g->model, model) &&
            eq_opt(g->domain, domain))
            return s;
    }
}

static const wx_group *find_group(const om_widx *x, const char *model, const char *domain,
                                  const char *op, unsigned kind)
{
    uint32_t s;
    if (!x->n_groups)
        return NULL;
    s = *group_slot((om_widx *)x, model, domain, op, kind);
    return s ? &((const wx_group *)x->groups)[s - 1] : NULL;
}

/* Trie edges: (node, byte) -> child, open-addressed; a slot holds child + 1, or 0. */
static size_t edge_hash(uint32_t node, unsigned char c, size_t mask)
{
    uint64_t k = ((uint64_t)node << 8 | c) * 0x9E3779B97F4A7C15u;
    return (size_t)(k >> 32 ^ k) & mask;
}

static uint32_t child(const om_widx *x, uint32_t node, unsigned char c)
{
    size_t mask, h;
    if (!x->eslots_cap)
        return NONE;
    mask = x->eslots_cap - 1;
    for (h = edge_hash(node, c, mask);; h = (h + 1) & mask) {
        const om_wedge *e = &x->eslots[h];
        if (!e->to)
            return NONE;
        if (e->from == node && e->c == c)
            return e->to - 1;
    }
}

static uint32_t new_node(om_widx *x)
{
    wx_node *n;
    if (x->n_nodes >= NONE - 1 ||
        !grow(x->mem, &x->nodes, &x->nodes_cap, x->n_nodes + 1, sizeof(wx_node)))
        return NONE;
    n = &((wx_node *)x->nodes)[x->n_nodes];
    n->first = n->last = NONE;
    return (uint32_t)x->n_nodes++;
}

static int rehash_edges(om_widx *x, size_t cap)
{
    om_wedge *old = x->eslots, *ne;
    size_t old_cap = x->eslots_cap, i, bytes;
    if (!om_mul_ok(cap, sizeof(*ne), &bytes) || !(ne = om_calloc(x->mem, cap, sizeof(*ne))))
        return 0;
    for (i = 0; i < old_cap; i++) {
        size_t h;
        if (!old[i].to)
            continue;
        for (h = edge_hash(old[i].from, old[i].c, cap - 1); ne[h].to; h = (h + 1) & (cap - 1))
            ;
        ne[h] = old[i];
    }
    om_dealloc(x->mem, old, old_cap * sizeof(*old));
    x->eslots = ne;
    x->eslots_cap = cap;
    return 1;
}

static uint32_t add_child(om_widx *x, uint32_t node, unsigned char c)
{
    uint32_t to = child(x, node, c), id;
    size_t h;
    if (to != NONE)
        return to;
    if ((x->n_edges + 1) * 2 > x->eslots_cap &&
        !rehash_edges(x, x->eslots_cap ? x->eslots_cap * 2 : 64))
        return NONE;
    if ((id = new_node(x)) == NONE)
        return NONE;
    for (h = edge_hash(node, c, x->eslots_cap - 1); x->eslots[h].to;
         h = (h + 1) & (x->eslots_cap - 1))
        ;
    x->eslots[h].from = node;
    x->eslots[h].c = c;
    x->eslots[h].to = id + 1;
    x->n_edges++;
    return id;
}

static int add_pattern(om_widx *x, wx_group *g, uint32_t w, const char *pat)
{
    size_t lit = strcspn(pat, "*?"), i;
    uint32_t node = g->root, p;
    wx_pat *wp;
    wx_node *n;
    for (i = 0; i < lit && node != NONE; i++)
        node = add_child(x, node, (unsigned char)pat[i]);
    if (node == NONE || x->n_pats >= NONE ||
        !grow(x->mem, &x->pats, &x->pats_cap, x->n_pats + 1, sizeof(wx_pat)))
        return OPMAP_ENOMEM;
    p = (uint32_t)x->n_pats++;
    wp = &((wx_pat *)x->pats)[p];
    wp->w = w;
    wp->next = NONE;
    wp->rest = pat[lit] ? (uint32_t)lit : NONE;
    n = &((wx_node *)x->nodes)[node];
    if (n->last == NONE)
        n->first = p;
    else
        ((wx_pat *)x->pats)[n->last].next = p;
    n->last = p;
    return OPMAP_OK;
}

void om_widx_init(om_widx *x, om_mem *mem, const opmap_waivers *ws)
{
    memset(x, 0, sizeof(*x));
    x->mem = mem;
    x->ws = ws;
}

void om_widx_clear(om_widx *x)
{
    om_mem *mem = x->mem;
    const opmap_waivers *ws = x->ws;
    om_dealloc(mem, x->groups, x->groups_cap * sizeof(wx_group));
    om_dealloc(mem, x->gslots, x->gslots_cap * sizeof(uint32_t));
    om_dealloc(mem, x->nodes, x->nodes_cap * sizeof(wx_node));
    om_dealloc(mem, x->pats, x->pats_cap * sizeof(wx_pat));
    om_dealloc(mem, x->eslots, x->eslots_cap * sizeof(om_wedge));
    om_widx_init(x, mem, ws);
}

int om_widx_add(om_widx *x, uint32_t wi, const char *model)
{
    const om_waiver *w = &x->ws->w[wi];
    uint32_t *slot;
    wx_group *g;
    if (x->n_groups + 1 > x->gslots_cap / 2) {
        /* rebuild the slots at twice the size */
        size_t cap = x->gslots_cap ? x->gslots_cap * 2 : 64, i;
        uint32_t *ns = om_calloc(x->mem, cap, sizeof(*ns));
        if (!ns)
            return OPMAP_ENOMEM;
        om_dealloc(x->mem, x->gslots, x->gslots_cap * sizeof(*ns));
        x->gslots = ns;
        x->gslots_cap = cap;
        for (i = 0; i < x->n_groups; i++) {
            const wx_group *o = &((const wx_group *)x->groups)[i];
            *group_slot(x, o->model, o->domain, o->op, o->kind) = (uint32_t)i + 1;
        }
    }
    slot = group_slot(x, model, w->domain, w->op, w->kind);
    if (!*slot) {
        if (x->n_groups >= NONE - 1 ||
            !grow(x->mem, &x->groups, &x->groups_cap, x->n_groups + 1, sizeof(wx_group)))
            return OPMAP_ENOMEM;
        g = &((wx_group *)x->groups)[x->n_groups];
        g->model = model;
        g->domain = w->domain;
        g->op = w->op;
        g->kind = w->kind;
        g->any_node = g->root = NONE;
        *slot = (uint32_t)++x->n_groups;
    }
    g = &((wx_group *)x->groups)[*slot - 1];
    if (!w->node) {
        if (g->any_node == NONE)
            g->any_node = wi;
        return OPMAP_OK;
    }
    if (g->any_node != NONE && g->any_node < wi)
        return OPMAP_OK; /* an earlier waiver of the group covers every finding already */
    if (g->root == NONE && (g->root = new_node(x)) == NONE)
        return OPMAP_ENOMEM;
    return add_pattern(x, g, wi, w->node);
}

/* The best (lowest) waiver of group `g` matching one of the paths, below `best`. */
static uint32_t query_group(const om_widx *x, const wx_group *g, const char *const *paths,
                            size_t n_paths, uint32_t best, uint64_t *compares)
{
    const wx_pat *pats = x->pats;
    const wx_node *nodes = x->nodes;
    size_t k;
    if (g->any_node < best)
        best = g->any_node;
    if (g->root == NONE)
        return best;
    for (k = 0; k < n_paths; k++) {
        const char *t = paths[k];
        uint32_t node = g->root;
        size_t i;
        for (i = 0; node != NONE; i++) {
            uint32_t p;
            for (p = nodes[node].first; p != NONE && pats[p].w < best; p = pats[p].next) {
                const wx_pat *wp = &pats[p];
                (*compares)++;
                if (wp->rest == NONE ? t[i] == '\0'
                                     : om_glob(x->ws->w[wp->w].node + wp->rest, t + i))
                    best = wp->w;
            }
            if (!t[i])
                break;
            node = child(x, node, (unsigned char)t[i]);
        }
    }
    return best;
}

uint32_t om_widx_query(const om_widx *x, const char *model, const char *domain, const char *op,
                       unsigned kind, const char *const *paths, size_t n_paths, uint32_t best,
                       uint64_t *compares)
{
    const char *models[2], *domains[2] = { domain, NULL }, *ops[2] = { op, "*" };
    unsigned kinds[2] = { kind, 0 };
    int nm = 0, a, b, c, d;
    if (model)
        models[nm++] = model;
    models[nm++] = NULL;
    for (a = 0; a < nm; a++)
        for (b = 0; b < 2; b++)
            for (c = 0; c < 2; c++)
                for (d = 0; d < 2; d++) {
                    const wx_group *g = find_group(x, models[a], domains[b], ops[c], kinds[d]);
                    if (g)
                        best = query_group(x, g, paths, n_paths, best, compares);
                }
    return best;
}

int om_waiver_model_class(const om_waiver *w)
{
    if (!w->model || all_stars(w->model))
        return OM_WMODEL_ANY;
    return is_literal(w->model) ? OM_WMODEL_LITERAL : OM_WMODEL_GLOB;
}
