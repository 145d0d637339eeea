/*
 * select_list.h - $select: a comma-separated list of property names, and projecting an entity
 * onto it.
 */
#ifndef SELECT_LIST_H
#define SELECT_LIST_H

#include "entity.h"

typedef struct SelectList
{
	int			n;				/* custom property names (system names are always returned) */
	const char **names;
	uint32	   *lens;
} SelectList;

/* Parse "A,B , C"; NULL text means "everything" (returns NULL). Raises InvalidInput (TSQ01). */
extern SelectList *select_list_parse(text *select);

/* The entity with only the listed properties (keys dropped). */
extern Entity *entity_project(const EntityView *v, const SelectList *sel);

#endif							/* SELECT_LIST_H */
