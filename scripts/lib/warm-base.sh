#!/usr/bin/env bash
# Import, replay and build the base's check kernel, for make test to run
# in the background: the fixture tests that come first keep one core busy
# for about six minutes, and the base's cold build, ten minutes on both
# cores, is the first thing t0100 waits for.  The build lock orders it
# with the tests' own imports and builds, which find its work done.
# Its output goes to $WORK/warm-base.log; whatever fails here fails
# again, and is reported, in the test that needs it.
# usage: warm-base.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK"
{ ensure_series && "$TOP/scripts/build.sh" "$(base_tag)"; } >"$WORK/warm-base.log" 2>&1
