//go:build amd64 && gc && !purego

#include "textflag.h"

// func touch(p *uint64)
//
// LOCK OR of 0 into *p: a write that changes nothing.
TEXT ·touch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	LOCK
	ORQ  $0, (AX)
	RET
