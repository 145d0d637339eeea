/*
 * unit.h - the checks of the gateway's unit tests (unit.c's main runs each file's tests).
 */
#ifndef GW_UNIT_H
#define GW_UNIT_H

#include <stdio.h>

extern int	passed,
			failed;

#define CHECK(cond, ...) \
	do { \
		if (cond) { passed++; } \
		else { failed++; printf("FAIL %s:%d ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

/* route_test.c */
extern void test_route(void);

#endif
