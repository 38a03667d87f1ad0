# SPDX-License-Identifier: GPL-2.0
# Included by each guest module's build: on a kernel other than 6.1,
# pa_compat.h comes first in every file and gives the modules the 6.1
# names of what was renamed since.  On 6.1 nothing changes, so the
# modules built there are the same as without it.
ifneq ($(VERSION).$(PATCHLEVEL),6.1)
ccflags-y += -include $(src)/../pa_compat/pa_compat.h
endif
