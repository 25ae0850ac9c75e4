package psbt

import (
	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
)

// tapScriptWitness returns the smallest script path witness the input's
// leaves and data allow (stack, leaf script, control block), or nil: every
// tapscript leaf that is miniscript (pk(), multi_a() and any other) is
// satisfied with the leaf's script signatures, the preimages and the
// spend's timelocks. Ties go to the leaf listed first.
func (in *Input) tapScriptWitness(ctx spendContext) [][]byte {
	if len(in.TapLeafScripts) == 0 {
		return nil
	}
	// Indexed once, so that large leaves with many signatures cost
	// linear time.
	sigs := make(map[string][]byte, len(in.TapScriptSigs))
	for _, s := range in.TapScriptSigs {
		sigs[string(s.XOnly)+string(s.LeafHash[:])] = s.Sig
	}
	var best [][]byte
	bestSize := 0
	for _, l := range in.TapLeafScripts {
		if l.LeafVersion != tapscriptLeafVersion || len(l.ControlBlock) < 33 || l.ControlBlock[0]&0xfe != tapscriptLeafVersion {
			continue
		}
		leaf := txscript.TapLeafHash(l.LeafVersion, l.Script)
		stack, ok := descriptor.SatisfyScript(l.Script, true, &inputSatisfier{in: in, ctx: ctx, leaf: &leaf, sigs: sigs})
		if !ok {
			continue
		}
		w := append(stack, l.Script, l.ControlBlock)
		size := witnessSize(w)
		if best == nil || size < bestSize {
			best, bestSize = w, size
		}
	}
	return best
}

// witnessSize is the serialized size of a witness stack.
func witnessSize(w [][]byte) int {
	n := varIntSize(uint64(len(w)))
	for _, it := range w {
		n += varIntSize(uint64(len(it))) + len(it)
	}
	return n
}

func varIntSize(n uint64) int {
	switch {
	case n < 0xfd:
		return 1
	case n <= 0xffff:
		return 3
	case n <= 0xffffffff:
		return 5
	}
	return 9
}
