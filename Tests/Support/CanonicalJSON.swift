import Foundation

/// `json` parsed and written again with sorted keys, on this platform: two texts of the same JSON
/// value give the same string whatever order their keys came in. Compare files this way, never byte
/// for byte: `.sortedKeys` orders keys differently on Apple's Foundation and on Linux's.
func canonicalJSON(_ json: Data) throws -> String {
    let value = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
    let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
}

/// `canonicalJSON(_:)` of a JSON text.
func canonicalJSON(_ json: String) throws -> String {
    try canonicalJSON(Data(json.utf8))
}
