/*
 * ts_report.h - raising the errors of core/base/ts_error.h in the backend (ereport), and the error
 * table as SQL (tablestore.error_codes()).
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include "ts_error.h"

extern void ts_raise(const TsError *err) pg_attribute_noreturn();
extern void ts_raise_prefixed(const TsError *err, const char *prefix) pg_attribute_noreturn();
extern void ts_raise_write_cancelled(const char *prefix) pg_attribute_noreturn();
extern void ts_raisef(TsErrorCode code, const char *fmt,...) pg_attribute_printf(2, 3) pg_attribute_noreturn();
extern int	ts_error_sqlstate_int(TsErrorCode code);

#endif							/* TS_REPORT_H */
