/*
 * query.h - settings of the query functions (query.c).
 */
#ifndef QUERY_H
#define QUERY_H

extern int	ts_max_filter_comparisons;	/* tablestore.max_filter_comparisons */
extern int	ts_query_time_budget_ms;	/* tablestore.query_time_budget */

#endif							/* QUERY_H */
