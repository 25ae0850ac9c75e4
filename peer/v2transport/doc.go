// Package v2transport implements BIP324, the encrypted v2 P2P transport:
// ElligatorSwift-encoded ephemeral keys and x-only ECDH, the HKDF key
// schedule, the forward-secure length and packet ciphers that rekey
// every 224 messages, garbage and its terminator, decoy packets, the
// version packet, 1-byte message types, and a Session that runs the
// handshake over a net.Conn and then reads and writes messages.
//
// Everything read from the peer is bounded before it is buffered: at
// most MaxGarbageLen bytes of garbage plus the terminator, and packet
// contents no larger than the message type plus Config.MaxPayload
// (wire.MaxProtocolMessageLength by default), checked on the decrypted
// length field before the packet's buffer is taken. A responder whose
// peer opens with a v1 version header returns a *V1PeerError holding the
// bytes it consumed, so the caller can carry on in v1.
package v2transport
