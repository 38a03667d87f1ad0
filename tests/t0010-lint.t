#!/usr/bin/env bash
# Host code is shellcheck-clean.
. "$(dirname "$0")/lib/tap.sh"

cd "$T_TOP" || exit 1
mapfile -t scripts < <(git ls-files '*.sh' '*.t' .ci/run 'bisect/*' 'tests/fake/*' | grep -v '\.md$')
for f in "${scripts[@]}"; do
	[[ -f $f ]] || continue
	ok "$f is shellcheck-clean" "cd '$T_TOP' && shellcheck -x '$f'"
done
ok "qemu/guest/init is shellcheck-clean as a POSIX sh script" "cd '$T_TOP' && shellcheck -s sh qemu/guest/init"
done_testing
