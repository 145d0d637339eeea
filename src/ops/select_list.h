/*
 * select_list.h - $select: a comma-separated list of property names, and projecting an entity
 * onto it.
 */
#ifndef SELECT_LIST_H
#define SELECT_LIST_H

#include "entity.h"

/* SelectList (core/entity/row_json.h): the custom names in order, and which system properties are named. */
#include "row_json.h"

/*
 * Parse "A,B , C"; NULL text, an empty (or blank) list and "*" mean "everything" (returns NULL).
 * Raises InvalidInput (TSQ01).
 */
extern SelectList *select_list_parse(text *select);

/* The entity with only the listed properties (keys dropped). */
extern Entity *entity_project(const EntityView *v, const SelectList *sel);

#endif							/* SELECT_LIST_H */
