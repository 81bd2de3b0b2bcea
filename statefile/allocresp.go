package statefile

import (
	"errors"
	"unicode/utf8"
)

// checkAllocResp reports whether google.golang.org/protobuf's proto.Unmarshal
// would accept b as a deviceplugin v1beta1 ContainerAllocateResponse: the wire
// format must be well formed, and the string fields the message knows must be
// valid UTF-8 (proto3). Unknown fields, and known fields with another wire
// type, are kept as unknown fields, as protobuf-go does.
func checkAllocResp(b []byte) error {
	// field number → kind of nested message (0 = plain string)
	return checkMessage(b, msgAllocResp, 0)
}

type protoMsg int

const (
	msgAllocResp protoMsg = iota
	msgMapEntry           // map<string,string> entry
	msgMount
	msgDeviceSpec
	msgCDIDevice
)

var errProtoTruncated = errors.New("truncated protobuf message")

func protoVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

// fieldKind tells, for a message, what a length-delimited field number holds:
// 's' a string, 'm' a nested message of the returned type, 0 unknown.
func fieldKind(m protoMsg, num uint64) (byte, protoMsg) {
	switch m {
	case msgAllocResp:
		switch num {
		case 1, 4:
			return 'm', msgMapEntry
		case 2:
			return 'm', msgMount
		case 3:
			return 'm', msgDeviceSpec
		case 5:
			return 'm', msgCDIDevice
		}
	case msgMapEntry:
		if num == 1 || num == 2 {
			return 's', 0
		}
	case msgMount:
		if num == 1 || num == 2 {
			return 's', 0
		}
	case msgDeviceSpec:
		if num >= 1 && num <= 3 {
			return 's', 0
		}
	case msgCDIDevice:
		if num == 1 {
			return 's', 0
		}
	}
	return 0, 0
}

func checkMessage(b []byte, m protoMsg, depth int) error {
	if depth > 10000 {
		return errors.New("protobuf message nested too deep")
	}
	for len(b) > 0 {
		tag, n := protoVarint(b)
		if n < 0 {
			return errProtoTruncated
		}
		b = b[n:]
		num, typ := tag>>3, tag&7
		if num == 0 || num > 1<<29-1 {
			return errors.New("invalid protobuf field number")
		}
		var err error
		b, err = skipProtoValue(b, num, typ, m, depth)
		if err != nil {
			return err
		}
	}
	return nil
}

func skipProtoValue(b []byte, num, typ uint64, m protoMsg, depth int) ([]byte, error) {
	switch typ {
	case 0:
		_, n := protoVarint(b)
		if n < 0 {
			return nil, errProtoTruncated
		}
		return b[n:], nil
	case 1:
		if len(b) < 8 {
			return nil, errProtoTruncated
		}
		return b[8:], nil
	case 5:
		if len(b) < 4 {
			return nil, errProtoTruncated
		}
		return b[4:], nil
	case 2:
		l, n := protoVarint(b)
		if n < 0 || l > uint64(len(b)-n) {
			return nil, errProtoTruncated
		}
		v := b[n : n+int(l)]
		switch k, sub := fieldKind(m, num); k {
		case 's':
			if !utf8.Valid(v) {
				return nil, errors.New("string field contains invalid UTF-8")
			}
		case 'm':
			if err := checkMessage(v, sub, depth+1); err != nil {
				return nil, err
			}
		}
		return b[n+int(l):], nil
	case 3: // start group: skip to the matching end group
		for {
			tag, n := protoVarint(b)
			if n < 0 {
				return nil, errProtoTruncated
			}
			b = b[n:]
			inNum, inTyp := tag>>3, tag&7
			if inNum == 0 || inNum > 1<<29-1 {
				return nil, errors.New("invalid protobuf field number")
			}
			if inTyp == 4 {
				if inNum != num {
					return nil, errors.New("mismatching protobuf end group marker")
				}
				return b, nil
			}
			var err error
			b, err = skipProtoValue(b, inNum, inTyp, -1, depth+1)
			if err != nil {
				return nil, err
			}
		}
	}
	return nil, errors.New("invalid protobuf wire type")
}
