#!/usr/bin/env bash
# Settings: every variable the host scripts and the Makefile read is
# documented in docs/settings.md, and the page names none that nothing
# reads (scripts/lib/check-settings.sh).
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# A scratch copy of what the checker reads: the scripts, the Makefile and
# the settings page.
copy_tree() {
	mkdir -p tree/qemu tree/docs &&
		cp -r "$T_TOP/scripts" "$T_TOP/bisect" "$T_TOP/Makefile" tree/ &&
		cp "$T_TOP"/qemu/*.sh tree/qemu/ &&
		cp "$T_TOP/docs/settings.md" tree/docs/
}

ok "every setting of the tree is documented, and every documented one is read" '
	check-settings.sh "$T_TOP" >out 2>&1; rc=$?; cat out &&
	test $rc -eq 0 && must_say "settings, each documented" out
'

ok "a setting a script reads with a default and the page lacks fails, by name and file" '
	copy_tree &&
	printf "planted=\${PA_PLANTED_SETTING:-1}\n" >>tree/scripts/bench.sh &&
	must_fail check-settings.sh "$PWD/tree" &&
	must_say "PA_PLANTED_SETTING is read by scripts/bench.sh but not documented" &&
	test "$(grep -c "check-settings: " fail.out)" -eq 1
'

ok "a make variable the Makefile reads and the page lacks fails too" '
	copy_tree &&
	printf "planted:\n\t@echo \$(or \$(PLANTED_MAKE_VAR),none)\n" >>tree/Makefile &&
	must_fail check-settings.sh "$PWD/tree" &&
	must_say "PLANTED_MAKE_VAR is read by Makefile"
'

ok "a setting the page names and no script reads fails, by name" '
	copy_tree &&
	printf "| \`PA_GONE_SETTING\` | 1 | read by nothing | none |\n" >>tree/docs/settings.md &&
	must_fail check-settings.sh "$PWD/tree" &&
	must_say "PA_GONE_SETTING is documented in docs/settings.md but no script reads it"
'

ok "the internal names of the allow-list and lower-case locals are not asked for" '
	copy_tree &&
	printf "x=\${GOOD_JSON:-} y=\${local_thing:-1}\n" >>tree/scripts/bench.sh &&
	check-settings.sh "$PWD/tree" >out 2>&1; rc=$?; cat out &&
	test $rc -eq 0
'

done_testing
