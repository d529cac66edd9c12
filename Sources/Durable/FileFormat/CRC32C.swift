/// CRC-32C (Castagnoli, the checksum of iSCSI, ext4 and SQLite's sibling formats): the per-record
/// checksum of the journal.
///
/// Reflected polynomial `0x82F63B78`, initial value and final XOR `0xFFFFFFFF`, so that
/// `CRC32C.checksum("123456789")` is `0xE3069283`. Table-driven, one byte at a time.
enum CRC32C {
    /// The 256 remainders of one byte, computed once.
    private static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
        }
        return crc
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        let table = Self.table
        for byte in bytes {
            crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)]
        }
        return crc ^ 0xFFFF_FFFF
    }
}
