/*
 * store/version.h - the store's order of implementation versions, for the
 * modules that must agree with lookup's outdated/newer rejections (the
 * host's prune).
 */
#ifndef OLC_STORE_VERSION_H
#define OLC_STORE_VERSION_H

/* Natural order of versions: digit runs compare numerically ("10" > "9"),
 * other bytes by value.  < 0, 0 or > 0 like strcmp. */
int olc_store__version_cmp(const char *a, const char *b);

#endif
