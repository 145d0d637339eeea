/*
 * fuzz.h - shared by the libFuzzer targets: the arena reset and round-trip check (fuzz_support.c) and a check that
 * aborts with a message, so that a broken property is a finding like a crash.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdio.h>
#include <stdlib.h>

extern void fuzz_reset(void);

/* An accepted entity's JSON parses back to the same bytes (the form is canonical). */
struct varlena;
extern void fuzz_check_json_roundtrip(const struct varlena *e);

/*
 * An entity's form: its directory strictly sorted by name, its order written a permutation of it
 * stored exactly when it differs from the name order, and e || e giving e back.
 */
extern void fuzz_check_form(const struct varlena *e);

/* An entity equals its name-order twin, whose bytes are the parts hashing reads (fuzz_check_form calls it). */
struct EntityView;
extern void fuzz_check_unordered(const struct EntityView *v);

#define FUZZ_CHECK(cond, what) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz property failed: %s\n", what); \
			abort(); \
		} \
	} while (0)

#endif							/* FUZZ_H */
