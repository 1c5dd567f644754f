package attach

import "hash/crc32"

func crc32PNG(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
