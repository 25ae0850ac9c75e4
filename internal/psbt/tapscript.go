package psbt

import (
	"github.com/btcnode/btcd/txscript"
)

// tapScriptWitness returns the smallest script path witness the input's
// leaves and signatures allow (stack, leaf script, control block), or nil.
// Leaves of the forms descriptors write for single keys and thresholds
// are satisfied: <key> OP_CHECKSIG (pk()), and <key> OP_CHECKSIG
// (<key> OP_CHECKSIGADD)... <k> OP_NUMEQUAL (multi_a()). Ties go to the
// leaf listed first.
func (in *Input) tapScriptWitness() [][]byte {
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
		stack := satisfyLeaf(l.Script, txscript.TapLeafHash(l.LeafVersion, l.Script), sigs)
		if stack == nil {
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

// satisfyLeaf returns the stack satisfying a pk() or multi_a() leaf with
// the signatures (by x-only key and leaf hash), or nil.
func satisfyLeaf(script []byte, leaf [32]byte, sigs map[string][]byte) [][]byte {
	keys, k, ok := parseTapThreshold(script)
	if !ok {
		return nil
	}
	// The first key's check consumes the top of the stack, so the
	// signatures go in reverse key order; keys beyond the threshold's
	// need get an empty signature, which the check counts as a failure.
	chosen := make([][]byte, len(keys))
	have := 0
	for i, x := range keys {
		if have == k {
			break
		}
		if s := sigs[string(x)+string(leaf[:])]; s != nil {
			chosen[i] = s
			have++
		}
	}
	if have < k {
		return nil
	}
	stack := make([][]byte, 0, len(keys))
	for i := len(keys) - 1; i >= 0; i-- {
		if chosen[i] == nil {
			stack = append(stack, []byte{})
		} else {
			stack = append(stack, chosen[i])
		}
	}
	return stack
}

// parseTapThreshold matches <key> OP_CHECKSIG, read as a 1-of-1, and
// <key> OP_CHECKSIG (<key> OP_CHECKSIGADD)... <k> OP_NUMEQUAL, returning
// the x-only keys and the threshold.
func parseTapThreshold(script []byte) ([][]byte, int, bool) {
	tok := txscript.MakeScriptTokenizer(script)
	var keys [][]byte
	var ops []byte
	var datas [][]byte
	for tok.Next() {
		ops = append(ops, tok.Opcode())
		datas = append(datas, tok.Data())
	}
	if tok.Err() || len(ops) < 2 {
		return nil, 0, false
	}
	if len(ops) == 2 && len(datas[0]) == 32 && ops[1] == txscript.OP_CHECKSIG {
		return [][]byte{datas[0]}, 1, true
	}
	n := len(ops)
	if n%2 != 0 || ops[n-1] != txscript.OP_NUMEQUAL {
		return nil, 0, false
	}
	for i := 0; i+3 < n; i += 2 {
		want := byte(txscript.OP_CHECKSIGADD)
		if i == 0 {
			want = txscript.OP_CHECKSIG
		}
		if len(datas[i]) != 32 || ops[i+1] != want {
			return nil, 0, false
		}
		keys = append(keys, datas[i])
	}
	k, ok := smallNumber(ops[n-2], datas[n-2])
	if !ok || k < 1 || k > len(keys) {
		return nil, 0, false
	}
	return keys, k, true
}

// smallNumber reads a threshold pushed as OP_1..OP_16 or as a minimal
// little-endian number of up to four bytes.
func smallNumber(op byte, data []byte) (int, bool) {
	if op >= txscript.OP_1 && op <= txscript.OP_16 {
		return int(op-txscript.OP_1) + 1, true
	}
	if len(data) == 0 || len(data) > 4 || data[len(data)-1]&0x80 != 0 {
		return 0, false
	}
	n := 0
	for i := len(data) - 1; i >= 0; i-- {
		n = n<<8 | int(data[i])
	}
	return n, true
}
