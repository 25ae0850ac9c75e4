package rpc

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// restUnavailable answers a resource whose backend the daemon did not wire,
// in the words of bitcoind's warm-up refusal.
func restUnavailable(what string) restReply {
	return restErr(http.StatusServiceUnavailable, "Service temporarily unavailable: "+what+" not available")
}

// restInternal reports a backend failure bitcoind has no REST status for.
func restInternal(err error) restReply {
	return restErr(http.StatusInternalServerError, toRPCError(err).Message)
}

// restBytes answers raw bytes in the requested binary form: as is for
// .bin, hex and a newline for .hex.
func restBytes(f restFormat, b []byte) restReply {
	if f == restHex {
		out := make([]byte, hex.EncodedLen(len(b))+1)
		hex.Encode(out, b)
		out[len(out)-1] = '\n'
		return restReply{status: http.StatusOK, contentType: "text/plain", body: out}
	}
	return restReply{status: http.StatusOK, contentType: "application/octet-stream", body: b}
}

// restJSONReply encodes v as bitcoind writes JSON, with a newline.
func restJSONReply(v any) restReply {
	b, err := encodeJSON(v)
	if err != nil {
		log.Errorf("REST: cannot encode result: %v", err)
		return restErr(http.StatusInternalServerError, "Internal error")
	}
	return restReply{status: http.StatusOK, contentType: "application/json", body: append(b, '\n')}
}

// restParams builds handler arguments from JSON literals, so REST reuses
// the RPC handlers' result construction.
func restParams(args ...string) *Params {
	p := &Params{args: make([]json.RawMessage, len(args))}
	for i, a := range args {
		p.args[i] = json.RawMessage(a)
	}
	return p
}

// isNotFound reports bitcoind's -5 (RPC_INVALID_ADDRESS_OR_KEY), which the
// backends use for unknown blocks and transactions.
func isNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == ErrInvalidAddress
}

// blockErr maps a block lookup failure: unknown blocks and unavailable
// block data are 404 naming the hash, as bitcoind.
func blockErr(param string, err error) restReply {
	if isNotFound(err) {
		return restErr(http.StatusNotFound, param+" not found")
	}
	msg := toRPCError(err).Message
	if rest, ok := strings.CutPrefix(msg, "Block not available"); ok {
		return restErr(http.StatusNotFound, param+" not available"+rest)
	}
	return restInternal(err)
}

// execREST answers a parsed request from the backends.
func (s *Server) execREST(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	switch req.ep {
	case epTx:
		return s.restTx(req)
	case epBlock, epBlockNoTx:
		return s.restBlock(req)
	case epHeaders:
		return s.restHeaders(req)
	case epBlockFilter:
		return s.restBlockFilter(req)
	case epFilterHeaders:
		return s.restFilterHeaders(req)
	case epBlockHashByHeight:
		return s.restBlockHash(req)
	case epGetUTXOs:
		return s.restGetUTXOs(req)
	case epChainInfo:
		if c == nil || c.BlockchainInfo == nil {
			return restUnavailable("chain info")
		}
		info, err := c.BlockchainInfo()
		if err != nil {
			return restInternal(err)
		}
		return restJSONReply(info)
	case epDeployment:
		return s.restDeployment(req)
	case epMempool:
		return s.restMempool(req)
	case epSpentTxOuts:
		return s.restSpentTxOuts(req)
	}
	return restNoRoute
}

func (s *Server) restTx(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.Transaction == nil {
		return restUnavailable("transaction lookup")
	}
	lk, err := c.Transaction(req.hash, nil)
	if err != nil {
		if isNotFound(err) {
			return restErr(http.StatusNotFound, req.param+" not found")
		}
		return restInternal(err)
	}
	switch req.format {
	case restBin, restHex:
		return restBytes(req.format, lk.Tx.Bytes())
	case restJSON:
		// As bitcoind's REST (TxToUniv): the decoded transaction with
		// its hex and, when confirmed, the block hash only.
		r := txToResult(lk.Tx, &s.cfg.Net, true, nil, false)
		if lk.BlockHash != nil {
			r.BlockHash = lk.BlockHash.String()
		}
		return restJSONReply(r)
	}
	return errFormatAll()
}

func (s *Server) restBlock(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.Block == nil || c.BlockHeader == nil {
		return restUnavailable("block lookup")
	}
	if req.format == restJSON {
		// bitcoind's /rest/block/ shows transactions with prevouts
		// (getblock verbosity 3); /notxdetails/ only txids (1).
		verbosity := "3"
		if req.ep == epBlockNoTx {
			verbosity = "1"
		}
		res, err := handleGetBlock(s, restParams(strconv.Quote(req.hash.String()), verbosity))
		if err != nil {
			return blockErr(req.param, err)
		}
		return restJSONReply(res)
	}
	blk, err := c.Block(req.hash)
	if err != nil {
		return blockErr(req.param, err)
	}
	if req.format == restUndef {
		return errFormatAll()
	}
	return restBytes(req.format, blk.Bytes())
}

// activeHeader is a block of the active chain for headers listings.
type activeHeader struct {
	hash wire.Hash
	hdr  *wire.BlockHeader
	info *BlockHeaderInfo
}

// activeRun lists up to count blocks of the active chain from hash
// upwards; it is empty when hash is unknown or not in the active chain, as
// bitcoind's.
func activeRun(c *ChainBackend, hash wire.Hash, count int) []activeHeader {
	hdr, info, err := c.BlockHeader(hash)
	if err != nil || info.Confirmations < 0 {
		return nil
	}
	out := make([]activeHeader, 0, min(count, 64))
	out = append(out, activeHeader{hash, hdr, info})
	for k := 1; k < count; k++ {
		h, err := c.BlockHash(info.Height + int32(k))
		if err != nil {
			break
		}
		hd, inf, err := c.BlockHeader(h)
		if err != nil || inf.Confirmations < 0 {
			break // reorganized meanwhile
		}
		out = append(out, activeHeader{h, hd, inf})
	}
	return out
}

func (s *Server) restHeaders(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.BlockHeader == nil || c.BlockHash == nil {
		return restUnavailable("header lookup")
	}
	run := activeRun(c, req.hash, req.count)
	switch req.format {
	case restBin, restHex:
		b := make([]byte, 0, len(run)*wire.BlockHeaderSize)
		for i := range run {
			b = run[i].hdr.AppendTo(b)
		}
		return restBytes(req.format, b)
	case restJSON:
		out := make([]*BlockHeaderResult, len(run))
		for i, a := range run {
			out[i] = headerResult(a.hash, a.hdr, a.info)
		}
		return restJSONReply(out)
	}
	return errFormatAll()
}

func (s *Server) restBlockFilter(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.BlockFilter == nil {
		return restErr(http.StatusBadRequest, "Index is not enabled for filtertype "+req.filterType)
	}
	f, err := c.BlockFilter(req.hash, req.filterType)
	if err != nil {
		if isNotFound(err) {
			return restErr(http.StatusNotFound, req.param+" not found")
		}
		return restErr(http.StatusNotFound, toRPCError(err).Message)
	}
	filter, ferr := hex.DecodeString(f.Filter)
	if ferr != nil {
		return restInternal(ferr)
	}
	switch req.format {
	case restBin, restHex:
		// bitcoind's BlockFilter serialization: type, block hash,
		// length-prefixed encoded filter.
		b := make([]byte, 0, 1+wire.HashSize+wire.VarIntSerializeSize(uint64(len(filter)))+len(filter))
		b = append(b, 0) // BlockFilterType::BASIC
		b = append(b, req.hash[:]...)
		b = wire.AppendVarBytes(b, filter)
		return restBytes(req.format, b)
	case restJSON:
		return restJSONReply(struct {
			Filter string `json:"filter"`
		}{f.Filter})
	}
	return errFormatAll()
}

func (s *Server) restFilterHeaders(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.BlockFilter == nil {
		return restErr(http.StatusBadRequest, "Index is not enabled for filtertype "+req.filterType)
	}
	if c.BlockHeader == nil || c.BlockHash == nil {
		return restUnavailable("header lookup")
	}
	run := activeRun(c, req.hash, req.count)
	headers := make([]wire.Hash, len(run))
	for i, a := range run {
		f, err := c.BlockFilter(a.hash, req.filterType)
		if err != nil {
			return restErr(http.StatusNotFound, toRPCError(err).Message)
		}
		if headers[i], err = wire.NewHashFromStr(f.Header); err != nil {
			return restInternal(err)
		}
	}
	switch req.format {
	case restBin, restHex:
		b := make([]byte, 0, len(headers)*wire.HashSize)
		for i := range headers {
			b = append(b, headers[i][:]...)
		}
		return restBytes(req.format, b)
	case restJSON:
		return restJSONReply(hashStrings(headers))
	}
	return errFormatAll()
}

func (s *Server) restBlockHash(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.BestBlock == nil || c.BlockHash == nil {
		return restUnavailable("block hash lookup")
	}
	_, tip, err := c.BestBlock()
	if err != nil {
		return restInternal(err)
	}
	if req.height > tip {
		return restErr(http.StatusNotFound, "Block height out of range")
	}
	h, err := c.BlockHash(req.height)
	if err != nil {
		return restErr(http.StatusNotFound, "Block height out of range")
	}
	switch req.format {
	case restBin:
		return restBytes(restBin, h[:])
	case restHex:
		return restReply{status: http.StatusOK, contentType: "text/plain", body: []byte(h.String() + "\n")}
	case restJSON:
		return restJSONReply(struct {
			BlockHash string `json:"blockhash"`
		}{h.String()})
	}
	return errFormatAll()
}

func (s *Server) restDeployment(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.DeploymentInfo == nil || c.BestBlock == nil {
		return restUnavailable("deployment info")
	}
	h := req.hash
	if req.hasHash {
		if c.BlockHeader != nil {
			if _, _, err := c.BlockHeader(h); err != nil {
				if isNotFound(err) {
					return restErr(http.StatusBadRequest, "Block not found")
				}
				return restInternal(err)
			}
		}
	} else {
		var err error
		if h, _, err = c.BestBlock(); err != nil {
			return restInternal(err)
		}
	}
	info, err := c.DeploymentInfo(h)
	if err != nil {
		if isNotFound(err) {
			return restErr(http.StatusBadRequest, "Block not found")
		}
		return restInternal(err)
	}
	return restJSONReply(info)
}

func (s *Server) restMempool(req *restRequest) restReply {
	m := s.cfg.Backend.Mempool
	if m == nil || (req.info && m.Info == nil) || (!req.info && m.TxIDs == nil) {
		return restErr(http.StatusNotFound, "Mempool disabled or instance not found")
	}
	if req.info {
		info, err := m.Info()
		if err != nil {
			return restInternal(err)
		}
		return restJSONReply(info)
	}
	res, err := handleGetRawMempool(s, restParams(strconv.FormatBool(req.verbose), strconv.FormatBool(req.mempoolSeq)))
	if err != nil {
		return restInternal(err)
	}
	return restJSONReply(res)
}

// utxoHit is one found output of a getutxos answer.
type utxoHit struct {
	height uint32
	value  int64
	script []byte
}

// restUTXO is one output in getutxos' JSON answer.
type restUTXO struct {
	Height       int32        `json:"height"`
	Value        json.Number  `json:"value"`
	ScriptPubKey ScriptPubKey `json:"scriptPubKey"`
}

// restUTXOs is getutxos' JSON answer (BIP64's fields).
type restUTXOs struct {
	ChainHeight  int32      `json:"chainHeight"`
	ChaintipHash string     `json:"chaintipHash"`
	Bitmap       string     `json:"bitmap"`
	UTXOs        []restUTXO `json:"utxos"`
}

func (s *Server) restGetUTXOs(req *restRequest) restReply {
	c := s.cfg.Backend.Chain
	if c == nil || c.TxOut == nil || c.BestBlock == nil {
		return restUnavailable("UTXO lookup")
	}
	tipHash, tipHeight, err := c.BestBlock()
	if err != nil {
		return restInternal(err)
	}
	bitmap := make([]byte, (len(req.outpoints)+7)/8)
	bits := make([]byte, len(req.outpoints))
	hits := make([]utxoHit, 0, len(req.outpoints))
	for i, op := range req.outpoints {
		o, err := c.TxOut(op, req.checkMempool)
		if err != nil {
			return restInternal(err)
		}
		bits[i] = '0'
		if o == nil {
			continue
		}
		bits[i] = '1'
		bitmap[i/8] |= 1 << (i % 8)
		height := uint32(restMempoolHeight)
		if o.Confirmations > 0 {
			base := tipHeight
			if o.BestBlock != tipHash && c.BlockHeader != nil {
				// The tip moved between the two calls: count from
				// the block the lookup saw.
				if _, info, err := c.BlockHeader(o.BestBlock); err == nil {
					base = info.Height
				}
			}
			height = uint32(int64(base) - o.Confirmations + 1)
		}
		hits = append(hits, utxoHit{height: height, value: o.Value, script: o.PkScript})
	}
	switch req.format {
	case restBin, restHex:
		// BIP64: height, tip hash, bitmap and CCoin records (a zero
		// version field, height, value, script).
		b := binary.LittleEndian.AppendUint32(nil, uint32(tipHeight))
		b = append(b, tipHash[:]...)
		b = wire.AppendVarBytes(b, bitmap)
		b = wire.AppendVarInt(b, uint64(len(hits)))
		for _, h := range hits {
			b = binary.LittleEndian.AppendUint32(b, 0)
			b = binary.LittleEndian.AppendUint32(b, h.height)
			b = binary.LittleEndian.AppendUint64(b, uint64(h.value))
			b = wire.AppendVarBytes(b, h.script)
		}
		return restBytes(req.format, b)
	}
	out := restUTXOs{ChainHeight: tipHeight, ChaintipHash: tipHash.String(), Bitmap: string(bits), UTXOs: make([]restUTXO, len(hits))}
	for i, h := range hits {
		out.UTXOs[i] = restUTXO{Height: int32(h.height), Value: formatBTC(h.value), ScriptPubKey: decodeScriptPubKey(h.script, &s.cfg.Net)}
	}
	return restJSONReply(out)
}
