#!/usr/bin/env bash
# Build the paprof QEMU plugin (qemu/profile/paprof.c) for this host's
# QEMU, once per source version; prints the path of the shared object.
# usage: paprof-plugin.sh
. "$(dirname "$0")/lib.sh"

src=$TOP/qemu/profile
key=$(cat "$src/paprof.c" "$src/plugin-api.h" | sha1sum | cut -c1-12)
so=$WORK/plugin/paprof-$key.so
if [[ ! -f $so ]]; then
	mkdir -p "$WORK/plugin"
	gcc -shared -fPIC -O2 -fvisibility=hidden -Wall -Wextra -Werror -Wno-unused-parameter \
		-o "$so.tmp" "$src/paprof.c" || die "qemu/profile/paprof.c does not build"
	mv "$so.tmp" "$so"
fi
echo "$so"
