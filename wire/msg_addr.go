package wire

import "encoding/binary"

// MaxAddrPerMsg is the most addresses an addr or addrv2 message may carry
// (Bitcoin Core's MAX_ADDR_TO_SEND).
const MaxAddrPerMsg = 1000

// addrEntrySize is an addr entry: timestamp and address.
const addrEntrySize = 4 + netAddressSize

// MsgAddr relays known peer addresses (pre-BIP155 form).
type MsgAddr struct {
	AddrList []NetAddress
}

// Command returns "addr".
func (m *MsgAddr) Command() string { return CmdAddr }

// BtcDecode reads at most MaxAddrPerMsg timestamped addresses.
func (m *MsgAddr) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	n := r.count("address count (MAX_ADDR_TO_SEND)", MaxAddrPerMsg, addrEntrySize)
	if r.err != nil {
		return r.err
	}
	list := make([]NetAddress, n)
	for i := range list {
		list[i].Timestamp = r.u32()
		readNetAddress(&r, &list[i])
	}
	if err := finish(&r); err != nil {
		return err
	}
	m.AddrList = list
	return nil
}

// BtcEncode appends the address list.
func (m *MsgAddr) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.AddrList) > MaxAddrPerMsg {
		return dst, limitError("address count (MAX_ADDR_TO_SEND)", uint64(len(m.AddrList)), MaxAddrPerMsg)
	}
	dst = AppendVarInt(dst, uint64(len(m.AddrList)))
	for i := range m.AddrList {
		dst = binary.LittleEndian.AppendUint32(dst, m.AddrList[i].Timestamp)
		dst = appendNetAddress(dst, &m.AddrList[i])
	}
	return dst, nil
}

// MaxPayloadLength is the count and MaxAddrPerMsg entries.
func (m *MsgAddr) MaxPayloadLength(pver uint32) uint32 {
	return uint32(VarIntSerializeSize(MaxAddrPerMsg) + MaxAddrPerMsg*addrEntrySize)
}

func (m *MsgAddr) payloadSize(MessageEncoding) int {
	return VarIntSerializeSize(uint64(len(m.AddrList))) + len(m.AddrList)*addrEntrySize
}

// MsgAddrV2 relays peer addresses in the BIP155 form, which also carries
// Tor v3, I2P and CJDNS addresses.
type MsgAddrV2 struct {
	AddrList []NetAddressV2
}

// minAddrV2Entry is the smallest addrv2 entry: time, services, network,
// empty address, port.
const minAddrV2Entry = 4 + 1 + 1 + 1 + 2

// maxKnownAddrSize is the longest address of a network we keep.
const maxKnownAddrSize = 32

// Command returns "addrv2".
func (m *MsgAddrV2) Command() string { return CmdAddrV2 }

// BtcDecode reads at most MaxAddrPerMsg entries. As in Bitcoin Core, an
// entry of a known network with the wrong address length, or any address
// longer than MaxAddrV2Size, is an error, while entries of unknown networks
// (and of Tor v2, no longer supported) are skipped. Address bytes are
// copied into one buffer shared by the list.
func (m *MsgAddrV2) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	n := r.count("address count (MAX_ADDR_TO_SEND)", MaxAddrPerMsg, minAddrV2Entry)
	if r.err != nil {
		return r.err
	}
	list := make([]NetAddressV2, 0, n)
	arena := make([]byte, 0, min(n*maxKnownAddrSize, r.remaining()))
	for i := 0; i < n && r.err == nil; i++ {
		var a NetAddressV2
		a.Timestamp = r.u32()
		a.Services = ServiceFlag(r.varint())
		a.NetworkID = NetworkID(r.u8())
		raw := r.bytes(r.count("addrv2 address length", MaxAddrV2Size, 1))
		port := r.bytes(2)
		if r.err != nil {
			break
		}
		a.Port = binary.BigEndian.Uint16(port)
		want := a.NetworkID.addrSize()
		if want == 0 {
			continue
		}
		if len(raw) != want {
			return messageError(ErrMalformed, "BIP155 %v address with length %d (should be %d)", a.NetworkID, len(raw), want)
		}
		start := len(arena)
		arena = append(arena, raw...)
		a.Addr = arena[start:len(arena):len(arena)]
		list = append(list, a)
	}
	if err := finish(&r); err != nil {
		return err
	}
	m.AddrList = list
	return nil
}

// BtcEncode appends the address list.
func (m *MsgAddrV2) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.AddrList) > MaxAddrPerMsg {
		return dst, limitError("address count (MAX_ADDR_TO_SEND)", uint64(len(m.AddrList)), MaxAddrPerMsg)
	}
	dst = AppendVarInt(dst, uint64(len(m.AddrList)))
	for i := range m.AddrList {
		a := &m.AddrList[i]
		if len(a.Addr) > MaxAddrV2Size {
			return dst, limitError("addrv2 address length", uint64(len(a.Addr)), MaxAddrV2Size)
		}
		dst = binary.LittleEndian.AppendUint32(dst, a.Timestamp)
		dst = AppendVarInt(dst, uint64(a.Services))
		dst = append(dst, byte(a.NetworkID))
		dst = AppendVarBytes(dst, a.Addr)
		dst = binary.BigEndian.AppendUint16(dst, a.Port)
	}
	return dst, nil
}

// MaxPayloadLength is the count and MaxAddrPerMsg entries of the longest
// form.
func (m *MsgAddrV2) MaxPayloadLength(pver uint32) uint32 {
	return uint32(VarIntSerializeSize(MaxAddrPerMsg) + MaxAddrPerMsg*(4+9+1+3+MaxAddrV2Size+2))
}

func (m *MsgAddrV2) payloadSize(MessageEncoding) int {
	n := VarIntSerializeSize(uint64(len(m.AddrList)))
	for i := range m.AddrList {
		a := &m.AddrList[i]
		n += 4 + VarIntSerializeSize(uint64(a.Services)) + 1 + VarIntSerializeSize(uint64(len(a.Addr))) + len(a.Addr) + 2
	}
	return n
}
