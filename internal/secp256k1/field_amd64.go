//go:build amd64 && !purego

package secp256k1

// useADX selects the assembly multiplication (MULX with the ADCX/ADOX
// carry chains, BMI2 and ADX); other amd64 processors use the pure Go
// code.
var useADX = hasBMI2ADX()

func hasBMI2ADX() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<8) != 0 && ebx&(1<<19) != 0
}

// feMul sets r = a*b.
func feMul(r, a, b *fe) {
	if useADX {
		mulADX(r, a, b)
		return
	}
	mulGeneric(r, a, b)
}

// feSqr sets r = a^2.
func feSqr(r, a *fe) {
	if useADX {
		sqrADX(r, a)
		return
	}
	sqrGeneric(r, a)
}

//go:noescape
func mulADX(r, a, b *fe)

//go:noescape
func sqrADX(r, a *fe)

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
