package rpc

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// This file is bitcoind's /rest/spenttxouts/<blockhash>.<bin|hex|json>
// (Core 30): the outputs each transaction of a block spent, read from the
// block's undo data. There is one list per transaction, the coinbase's
// being empty. The binary form is a CompactSize count of lists, then per
// list a CompactSize count of outputs each serialized as in a transaction
// (8-byte value, CompactSize-prefixed script); the JSON form is an array
// of arrays of {"value", "scriptPubKey"}.

// spentTxOut is one spent output in the JSON form.
type spentTxOut struct {
	Value        json.Number  `json:"value"`
	ScriptPubKey ScriptPubKey `json:"scriptPubKey"`
}

func parseSpentTxOuts(req *restRequest) (*restRequest, *restReply) {
	if strings.Contains(req.param, "/") {
		r := restErr(http.StatusBadRequest, "Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>")
		return nil, &r
	}
	h, ok := parseRESTHash(req.param)
	if !ok {
		r := restErr(http.StatusBadRequest, "Invalid hash: "+req.param)
		return nil, &r
	}
	req.hash, req.hasHash = h, true
	return req, nil
}

func (s *Server) restSpentTxOuts(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.BlockHeader == nil || c.BlockPrevOuts == nil {
		return restUnavailable("undo data")
	}
	_, info, err := c.BlockHeader(req.hash)
	if err != nil {
		if isNotFound(err) {
			return restErr(http.StatusNotFound, req.param+" not found")
		}
		return restInternal(err)
	}
	var spent [][]PrevOut
	// The genesis block has no undo data and spends nothing.
	if info.Height > 0 {
		spent, err = c.BlockPrevOuts(req.hash)
		if err != nil || spent == nil {
			return restErr(http.StatusNotFound, req.param+" undo not available")
		}
	}
	switch req.format {
	case restBin, restHex:
		return restBytes(req.format, appendSpentTxOuts(nil, spent))
	case restJSON:
		out := make([][]spentTxOut, 1, len(spent)+1)
		out[0] = []spentTxOut{}
		for _, tx := range spent {
			list := make([]spentTxOut, len(tx))
			for i, p := range tx {
				list[i] = spentTxOut{Value: formatBTC(p.Value), ScriptPubKey: decodeScriptPubKey(p.PkScript, &s.cfg.Net)}
			}
			out = append(out, list)
		}
		return restJSONReply(out)
	}
	return errFormatAll()
}

// appendSpentTxOuts appends the binary form of the spent outputs of a
// block's non-coinbase transactions, with the coinbase's empty list first.
func appendSpentTxOuts(dst []byte, spent [][]PrevOut) []byte {
	dst = wire.AppendVarInt(dst, uint64(len(spent)+1))
	dst = wire.AppendVarInt(dst, 0)
	for _, tx := range spent {
		dst = wire.AppendVarInt(dst, uint64(len(tx)))
		for _, p := range tx {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.Value))
			dst = wire.AppendVarInt(dst, uint64(len(p.PkScript)))
			dst = append(dst, p.PkScript...)
		}
	}
	return dst
}
