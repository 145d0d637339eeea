/*
 * property_filter.h - the SQL type tablestore.property_filter (one comparison of a custom property
 * with a literal, prop_filter.h) and the operator entity @~ property_filter: contract §5's typed
 * comparison, which the entity index (entity_gin.c) serves.
 */
#ifndef PROPERTY_FILTER_H
#define PROPERTY_FILTER_H

#include "entity.h"
#include "prop_filter.h"

/* Read a property_filter datum (detoasted in the current context); raises on bad data. */
extern void property_filter_of(Datum d, PropFilter *out);

#endif							/* PROPERTY_FILTER_H */
