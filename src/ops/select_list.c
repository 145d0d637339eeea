/*
 * select_list.c - parsing $select and projecting entities onto it.
 */
#include "select_list.h"

SelectList *
select_list_parse(text *select)
{
	const char *s;
	int			len;
	SelectList *sel;
	int			start = 0;
	int			blank = 0;
	char		ex[TS_EXCERPT_BUF];

	if (select == NULL)
		return NULL;
	s = VARDATA_ANY(select);
	len = VARSIZE_ANY_EXHDR(select);
	/* "*" and an empty (or blank) $select mean every property: SDKs send "$select=" */
	while (blank < len && s[blank] == ' ')
		blank++;
	if (blank == len || (len == 1 && s[0] == '*'))
		return NULL;
	sel = palloc0(sizeof(SelectList));
	sel->names = palloc(sizeof(char *) * (len / 2 + 2));
	sel->lens = palloc(sizeof(uint32) * (len / 2 + 2));
	for (int i = 0; i <= len; i++)
	{
		int			a = start,
					b = i;
		EdmSystemProp sys;

		if (i < len && s[i] != ',')
			continue;
		while (a < b && s[a] == ' ')
			a++;
		while (b > a && s[b - 1] == ' ')
			b--;
		start = i + 1;
		if (a == b)
			ts_raisef(TSE_QUERY_ARG, "$select has an empty name (at character %d)", a + 1);
		sys = edm_system_prop(s + a, b - a);
		if (sys != EDM_SYS_NONE)
		{
			/* PartitionKey, RowKey, Timestamp: always in the SQL row forms; in JSON only if named */
			sel->pk |= sys == EDM_SYS_PARTITION_KEY;
			sel->rk |= sys == EDM_SYS_ROW_KEY;
			sel->ts |= sys == EDM_SYS_TIMESTAMP;
			continue;
		}
		if (edm_check_name(s + a, b - a) != EDM_CHECK_OK)
			ts_raisef(TSE_QUERY_ARG, "$select names \"%s\", which is not a valid property name",
					  ts_excerpt(ex, sizeof(ex), s + a, b - a));
		if (sel->n == TS_MAX_PROPERTIES)
			ts_raisef(TSE_QUERY_ARG, "$select names more than %d properties", TS_MAX_PROPERTIES);
		sel->names[sel->n] = s + a;
		sel->lens[sel->n++] = b - a;
	}
	return sel;
}

Entity *
entity_project(const EntityView *v, const SelectList *sel)
{
	PropRef    *props = palloc(sizeof(PropRef) * (sel->n + 1));
	int			n = 0;
	TsError		err = {0};
	Entity	   *r;

	for (int i = 0; i < sel->n; i++)
	{
		int			k = entity_view_find(v, sel->names[i], sel->lens[i]);
		bool		dup = false;

		if (k < 0)
			continue;
		for (int j = 0; j < n; j++)
			dup |= (props[j].name_len == sel->lens[i] &&
					memcmp(props[j].name, sel->names[i], sel->lens[i]) == 0);
		if (!dup)
			entity_view_prop(v, k, &props[n++]);
	}
	r = entity_build(props, n, NULL, ENTITY_BUILD_SORT, &err);
	if (r == NULL)
		ts_raise(&err);
	return r;
}
