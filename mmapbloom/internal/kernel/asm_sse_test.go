package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rule these tests enforce on the assembly files: code that uses AVX
// (any VEX- or EVEX-encoded instruction, which the Go assembler spells
// with a leading V, or a Y or Z register) must not contain a legacy-SSE
// instruction, and must run VZEROUPPER right before each RET.
//
// A legacy-SSE instruction is one that names an XMM register (X0-X31)
// without the VEX/EVEX encoding: PXOR, MOVOU, and also the integer moves
// MOVQ/MOVD/MOVL when an operand is an X register (`MOVQ AX, X1` is the
// SSE2 MOVQ; `VMOVQ AX, X1` is its VEX twin). Once the upper halves of
// the vector registers hold data, such an instruction makes the CPU
// preserve them on every execution: a false dependency on the whole
// register with a merge µop (Intel Skylake and later, AMD) or a state
// transition costing tens of cycles (older Intel). In a loop this made
// the AVX2 kernels 15-20x slower than pure Go (`MOVQ AX, X1` in
// blockMasksAVX2 did that once). VZEROUPPER before returning keeps the same penalty
// out of the caller's SSE code (the Go runtime's memmove, for one).
//
// Each TEXT routine and each #define macro body is a unit; a unit that
// uses AVX is checked. Instructions without an XMM operand (MOVQ AX, BX;
// PREFETCHT0) are not SSE state and are allowed.

// xmmOperand matches an XMM register operand.
var xmmOperand = regexp.MustCompile(`\bX([0-9]|[12][0-9]|3[01])\b`)

// wideOperand matches a YMM or ZMM register operand.
var wideOperand = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)

// asmInstr is one instruction of an assembly file.
type asmInstr struct {
	line     int    // 1-based line in the file
	mnemonic string // upper case, as written
	operands string
}

// asmUnit is a TEXT routine or a macro body.
type asmUnit struct {
	name   string
	instrs []asmInstr
}

// parseAsmUnits splits Go assembly source into its TEXT routines and
// #define macro bodies, each as a list of instructions (labels,
// directives and comments dropped).
func parseAsmUnits(src string) []asmUnit {
	var units []asmUnit
	inMacro := false
	for i, raw := range strings.Split(src, "\n") {
		text, _, _ := strings.Cut(raw, "//")
		text = strings.TrimSpace(text)
		cont := strings.HasSuffix(text, `\`)
		text = strings.TrimSpace(strings.TrimSuffix(text, `\`))
		switch {
		case strings.HasPrefix(text, "#define"):
			name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(text, "#define")), "(")
			units = append(units, asmUnit{name: "#define " + name})
			inMacro = cont
			continue
		case strings.HasPrefix(text, "TEXT"):
			name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(text, "TEXT")), "(")
			units = append(units, asmUnit{name: name})
			continue
		case inMacro:
			inMacro = cont
		case strings.HasPrefix(text, "#"), strings.HasPrefix(text, "DATA"), strings.HasPrefix(text, "GLOBL"):
			continue
		}
		if len(units) == 0 {
			continue
		}
		u := &units[len(units)-1]
		for _, stmt := range strings.Split(text, ";") {
			stmt = strings.TrimSpace(stmt)
			if stmt == "" || strings.HasSuffix(stmt, ":") {
				continue
			}
			mnemonic, operands, _ := strings.Cut(stmt, " ")
			u.instrs = append(u.instrs, asmInstr{i + 1, strings.ToUpper(mnemonic), strings.TrimSpace(operands)})
		}
	}
	return units
}

// usesAVX reports whether u has a VEX/EVEX instruction or a YMM/ZMM operand.
func (u asmUnit) usesAVX() bool {
	for _, in := range u.instrs {
		if strings.HasPrefix(in.mnemonic, "V") || wideOperand.MatchString(in.operands) {
			return true
		}
	}
	return false
}

// isLegacySSE reports whether in is a legacy-SSE (non-VEX) instruction.
func (in asmInstr) isLegacySSE() bool {
	return !strings.HasPrefix(in.mnemonic, "V") && xmmOperand.MatchString(in.operands)
}

// avxViolations lists, for every AVX unit of src, its legacy-SSE
// instructions and its RETs not preceded by VZEROUPPER.
func avxViolations(src string) []string {
	var bad []string
	for _, u := range parseAsmUnits(src) {
		if !u.usesAVX() {
			continue
		}
		for j, in := range u.instrs {
			if in.isLegacySSE() {
				bad = append(bad, fmt.Sprintf("%s: legacy SSE at line %d: %s %s", u.name, in.line, in.mnemonic, in.operands))
			}
			if in.mnemonic == "RET" && (j == 0 || u.instrs[j-1].mnemonic != "VZEROUPPER") {
				bad = append(bad, fmt.Sprintf("%s: RET without VZEROUPPER at line %d", u.name, in.line))
			}
		}
	}
	return bad
}

// TestNoLegacySSEInAVX checks every assembly file of the package against
// the rule above.
func TestNoLegacySSEInAVX(t *testing.T) {
	files, err := filepath.Glob("*.s")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Empty(t, avxViolations(string(src)), name)
	}
}

// TestAVXViolations checks the checker on small routines: each case is
// one instruction placed in an AVX routine and, unless it is AVX itself,
// in a routine without AVX, where SSE is allowed.
func TestAVXViolations(t *testing.T) {
	for _, tc := range []struct {
		instr  string
		legacy bool
	}{
		{"MOVQ AX, X1", true},
		{"MOVD AX, X15", true},
		{"MOVL AX, X3", true},
		{"MOVQ X1, AX", true},
		{"PXOR X0, X0", true},
		{"MOVOU (SI), X2", true},
		{"PSHUFB X1, X2", true},
		{"PINSRQ $1, AX, X4", true},
		{"CVTSI2SD AX, X5", true},
		{"VMOVQ AX, X1", false},
		{"VMOVD AX, X15", false},
		{"VPXOR X0, X0, X0", false},
		{"VPBROADCASTQ X14, Y14", false},
		{"MOVQ (DI), AX", false},
		{"MOVQ X+8(FP), AX", false},
		{"PREFETCHT0 (SI)(AX*1)", false},
		{"KMOVW K1, AX", false},
	} {
		t.Run(tc.instr, func(t *testing.T) {
			avx := "TEXT ·f(SB), 0, $0\n\tVPXOR Y0, Y0, Y0\n\t" + tc.instr + "\n\tVZEROUPPER\n\tRET\n"
			assert.Equal(t, tc.legacy, len(avxViolations(avx)) == 1, avxViolations(avx))
			if !strings.HasPrefix(tc.instr, "V") {
				plain := "TEXT ·g(SB), 0, $0\n\t" + tc.instr + "\n\tRET\n"
				assert.Empty(t, avxViolations(plain), "SSE outside AVX code is allowed")
			}
		})
	}
	macro := "#define M(l) \\\n\tVPXORQ Z0, Z0, Z0; \\\nl: \\\n\tMOVQ AX, X1; \\\n\tJB l\n\nTEXT ·h(SB), 0, $0\n\tRET\n"
	assert.Len(t, avxViolations(macro), 1, "legacy SSE in an AVX macro")
	noVZ := "TEXT ·f(SB), 0, $0\n\tVPXOR Y0, Y0, Y0\n\tRET\n"
	assert.Len(t, avxViolations(noVZ), 1, "RET without VZEROUPPER")
}
