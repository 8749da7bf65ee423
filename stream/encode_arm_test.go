package stream

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/e2e/testenv"
)

// armParamSrc has functions taking a 64-bit parameter in a register pair
// (r2:r3 after a 32-bit one, r0:r1 first). GCC describes such a
// parameter as DW_OP_reg2 DW_OP_piece 4 DW_OP_reg3 DW_OP_piece 4 and,
// once the pair is clobbered, DW_OP_entry_value(DW_OP_regval_type R2
// <type>). pahole (libdw) takes the single inner operation's opcode,
// DW_OP_regval_type, as the "register", which is not the expected
// DW_OP_regN: the function is marked unexpected_reg and dropped. Only
// keep32 survives pahole 1.31.
const armParamSrc = `typedef long long loff_t;
extern int sink64(void *p, loff_t pos, unsigned int len, void *q);
extern int sink32(void *p, int a, int b);
extern void use(unsigned long long v);

int pass_pos(void *p, loff_t pos, unsigned int len, void *q)
{
	return sink64(p, pos, len, q) + 1;
}

int first64(unsigned long long v, int n)
{
	use(v);
	use(v + n);
	return n;
}

int keep32(void *p, int a, int b)
{
	return sink32(p, a, b) + a;
}

int unused64(int a, loff_t pos)
{
	return sink32(0, a, a) + 2;
}
`

// TestARMRegisterPairParams compares the functions kept for an armhf
// object with pahole 1.31's.
func TestARMRegisterPairParams(t *testing.T) {
	const cc = "arm-linux-gnueabihf-gcc"
	testenv.Tool(t, cc, "gcc-arm-linux-gnueabihf")
	testenv.Pahole(t)
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "armparam.c"), filepath.Join(dir, "armparam.o")
	if err := os.WriteFile(src, []byte(armParamSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-g", "-O2", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	want := paholeBTF(t, obj, kbuildFeatures)
	got, _, err := EncodeFile(obj, DefaultEncodeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if g, w := kindCounts(got), kindCounts(want); g != w {
		t.Errorf("kind counts: got %v, pahole %v", g, w)
	}
	onlyGot, onlyWant := diffCanon(got, want)
	if len(onlyGot)+len(onlyWant) > 0 {
		t.Errorf("differences against pahole 1.32:\n only btfstream:\n  %s\n only pahole:\n  %s",
			strings.Join(onlyGot, "\n  "), strings.Join(onlyWant, "\n  "))
	}
}
