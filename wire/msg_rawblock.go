package wire

// MsgRawBlock is a "block" message whose payload is already serialized:
// the bytes of a block as stored on disk (with witness data). Serving a
// block from its stored bytes skips decoding it into a MsgBlock and
// encoding it again, which was most of the cost of answering getdata
// during a peer's initial sync. It is for sending; received blocks decode
// into MsgBlock.
type MsgRawBlock struct {
	// Raw is the witness serialization of the block. It is not checked:
	// it came from our own block files, which were validated when stored.
	Raw []byte
}

// Command returns "block".
func (m *MsgRawBlock) Command() string { return CmdBlock }

// BtcDecode copies the payload after checking that it decodes as a block
// under enc (so a MsgRawBlock round-trips like a MsgBlock).
func (m *MsgRawBlock) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	var blk MsgBlock
	if err := blk.BtcDecode(p, pver, enc); err != nil {
		return err
	}
	m.Raw = append(m.Raw[:0], p...)
	return nil
}

// BtcEncode appends Raw. A peer that did not ask for witness data gets
// the block decoded and re-encoded without it.
func (m *MsgRawBlock) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if wantWitness(enc) {
		return append(dst, m.Raw...), nil
	}
	var blk MsgBlock
	if _, err := blk.Decode(m.Raw); err != nil {
		return dst, err
	}
	return blk.AppendTo(dst, false), nil
}

// MaxPayloadLength is MaxBlockSerializedSize.
func (m *MsgRawBlock) MaxPayloadLength(pver uint32) uint32 { return MaxBlockSerializedSize }

func (m *MsgRawBlock) payloadSize(enc MessageEncoding) int { return len(m.Raw) }
