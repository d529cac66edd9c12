/// A combined reducer's parts, grouped by the action type that reaches them.
///
/// For each struct or enum action type that some `on` part handles, the parts an action of that
/// type must meet: those `on` parts and every part that may handle any type, in the order given to
/// `combine`. Every other type meets only the parts that may handle any type. Built once, when the
/// reducer is combined, and never changed: a class so that the combined reducer's closure holds one
/// reference, and its `let` arrays are read in place.
@usableFromInline
final class ActionTypeTable<State>: Sendable {
    @usableFromInline
    typealias Step = @Sendable (inout State, any Action) -> Void

    /// Open addressing with linear probing; `0` marks an empty slot (no metatype lives at address
    /// zero). A key is an action type's `ObjectIdentifier` as a bit pattern.
    @usableFromInline let keys: [UInt]
    /// Slot `s`'s steps are `steps[bounds[s] ..< bounds[s + 1]]`; the steps for every other type
    /// are `steps[bounds[keys.count] ..< bounds[keys.count + 1]]`.
    @usableFromInline let bounds: [Int]
    @usableFromInline let steps: ContiguousArray<Step>
    @usableFromInline let shift: UInt
    @usableFromInline let mask: Int

    @inlinable
    init(_ parts: [Reducer<State>]) {
        var types: [ObjectIdentifier] = []
        for part in parts {
            if let type = part.handledType, !types.contains(type) { types.append(type) }
        }
        // At most half full keeps the probes short; a power of two makes the index a mask.
        var bits: UInt = 1
        while 1 << bits < 2 * types.count { bits += 1 }
        let capacity = 1 << bits
        let shift = UInt(UInt.bitWidth) - bits
        var keys = [UInt](repeating: 0, count: capacity)
        var typeInSlot = [ObjectIdentifier?](repeating: nil, count: capacity)
        for type in types {
            var slot = Self.slot(of: UInt(bitPattern: type), shift: shift)
            while keys[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            keys[slot] = UInt(bitPattern: type)
            typeInSlot[slot] = type
        }
        var bounds: [Int] = [0]
        var steps: ContiguousArray<Step> = []
        for type in typeInSlot {
            if let type {
                for part in parts where part.handledType == nil || part.handledType == type {
                    steps.append(part.reduce)
                }
            }
            bounds.append(steps.count)
        }
        for part in parts where part.handledType == nil { steps.append(part.reduce) }
        bounds.append(steps.count)
        self.keys = keys
        self.bounds = bounds
        self.steps = steps
        self.shift = shift
        mask = capacity - 1
    }

    /// Fibonacci hashing: the high bits of the key times 2^64 / golden ratio. Metatype addresses
    /// share their low bits (alignment), so those alone would collide.
    @inlinable
    static func slot(of key: UInt, shift: UInt) -> Int {
        // 2^64 / golden ratio, or on a 32-bit platform 2^32 / golden ratio.
        let multiplier = UInt(exactly: 0x9E37_79B9_7F4A_7C15 as UInt64) ?? 0x9E37_79B9
        return Int((key &* multiplier) >> shift)
    }

    /// Applies, in order, every part that an action of `action`'s type must meet.
    ///
    /// Inlinable, like the combined reducer's closure that calls it, so that the app's module
    /// specializes it for its own `State`: unspecialized, every step is called through generic
    /// `inout State` handling, which costs more than the lookup itself.
    @inlinable
    func apply(_ state: inout State, _ action: any Action) {
        let key = typeKey(of: action)
        var slot = Self.slot(of: key, shift: shift)
        while true {
            let found = keys[slot]
            if found == key { break }
            if found == 0 {
                slot = keys.count
                break
            }
            slot = (slot + 1) & mask
        }
        var index = bounds[slot]
        let end = bounds[slot + 1]
        while index < end {
            steps[index](&state, action)
            index += 1
        }
    }
}
