extension String {
    /// `bytes` as a string when they are well-formed UTF-8, `nil` otherwise (never repaired).
    ///
    /// The standard library's `String(validating:as:)` does this from macOS 15 / iOS 18, above the
    /// package's floor (macOS 14 / iOS 17). Decoding repairs ill-formed bytes with U+FFFD, and
    /// leaves well-formed ones exactly as they were: the decoded string's UTF-8 equals `bytes`
    /// exactly when nothing was repaired.
    init?(validUTF8 bytes: some Collection<UInt8>) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
