/*
 * filter.c - an OData $filter evaluated against records (filter.h).
 */
#include "filter.h"
#include "mem.h"
#include "odata.h"

#include <string.h>

struct CopyFilter
{
	MemArena	arena;			/* the parsed tree's */
	char	   *text;			/* the filter (the tree's names and strings point into it) */
	OdNode	   *root;			/* NULL: an empty filter (everything) */
};

CopyFilter *
filter_compile(const char *filter, TsError *err)
{
	CopyFilter *f = mem_alloc(sizeof(CopyFilter));
	MemArena   *prev;
	int			ncmp = 0;

	memset(f, 0, sizeof(*f));
	f->text = mem_strdup(filter);
	prev = mem_use(&f->arena);
	f->root = odata_parse(f->text, strlen(f->text), ODATA_DEFAULT_MAX_COMPARISONS, &ncmp, err);
	mem_use(prev);
	if (f->root == NULL && err->code != TSE_NONE)
	{
		filter_free(f);
		return NULL;
	}
	return f;
}

void
filter_free(CopyFilter *f)
{
	if (f == NULL)
		return;
	mem_arena_free(&f->arena);
	free(f->text);
	free(f);
}

static bool
eval(const OdNode *n, const Record *r, const EntityView *v)
{
	PropRef		p;
	uint8		ticks[8];
	int			i;

	switch (n->kind)
	{
		case N_AND:
			for (int k = 0; k < n->nkids; k++)
				if (!eval(n->kids[k], r, v))
					return false;
			return true;
		case N_OR:
			for (int k = 0; k < n->nkids; k++)
				if (eval(n->kids[k], r, v))
					return true;
			return false;
		case N_NOT:
			return !eval(n->kids[0], r, v);
		case N_CONST:
			return n->lit.b;
		case N_CMP:
			break;
	}
	memset(&p, 0, sizeof(p));
	switch (n->prop)
	{
		case PROP_PARTITION_KEY:
		case PROP_ROW_KEY:
			/* a key is a String that is always there */
			p.type = EDM_STRING;
			p.val = (const uint8 *) (n->prop == PROP_PARTITION_KEY ? r->pk : r->rk);
			p.val_len = n->prop == PROP_PARTITION_KEY ? r->pk_len : r->rk_len;
			return odata_eval_prop(&p, n->op, &n->lit);
		case PROP_TIMESTAMP:
			if (r->ticks == 0)
				return false;	/* a record without one (a hand-made file): absent */
			ts_wr64(ticks, (uint64) r->ticks);
			p.type = EDM_DATETIME;
			p.val = ticks;
			p.val_len = 8;
			return odata_eval_prop(&p, n->op, &n->lit);
		case PROP_CUSTOM:
			break;
	}
	if (v == NULL || (i = entity_view_find(v, n->name, n->name_len)) < 0)
		return odata_eval_prop(NULL, n->op, &n->lit);
	entity_view_prop(v, (uint32) i, &p);
	return odata_eval_prop(&p, n->op, &n->lit);
}

bool
filter_match(const CopyFilter *f, const Record *r)
{
	EntityView	v;

	if (f->root == NULL)
		return true;
	if (r->body != NULL)
		entity_view_init(&v, r->body, r->body_len);
	return eval(f->root, r, r->body != NULL ? &v : NULL);
}
