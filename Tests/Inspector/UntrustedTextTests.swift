import Foundation
import Testing

@testable import OresRedux

/// A file name that reads "invoiceexe.pdf" with its bidi override rendered, and every other kind of
/// character that hides or bends text: each is shown as an escape, everywhere the inspector and the
/// pictures show user text.
@Suite("Untrusted text")
struct UntrustedTextTests {
    static let spoofed = "invoice\u{202E}fdp.exe\u{202C}"

    @Test("a bidi override is shown as its escape, not rendered")
    func bidiOverride() {
        #expect(UntrustedText.escaped(Self.spoofed) == #"invoice\u{202E}fdp.exe\u{202C}"#)
    }

    @Test("bidi controls, zero-width and format characters, DEL, C0 and C1, and line separators are escaped")
    func everyKind() {
        let escaped: [UInt32] =
            [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C]
            + [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0xE0041, 0x034F, 0x3164]
            + [0x00, 0x01, 0x1B, 0x7F, 0x80, 0x85, 0x9F, 0x2028, 0x2029]
        for value in escaped {
            let scalar = Unicode.Scalar(value)!
            let text = "a" + String(Character(scalar)) + "b"
            let expected = "a\\u{" + String(value, radix: 16, uppercase: true) + "}b"
            #expect(UntrustedText.escaped(text) == expected, "U+\(String(value, radix: 16, uppercase: true))")
            #expect(SwiftLiteral.string(text).contains("\\u{") || value == 0, "the generated Swift escapes it too")
        }
        #expect(UntrustedText.escaped("line\nnext\ttab\rreturn") == #"line\nnext\ttab\rreturn"#)
        #expect(UntrustedText.escaped("code\n\tindented", keepingLines: true) == "code\n\tindented")
    }

    @Test("text people write is kept as written: accents, scripts, emoji, quotes and backslashes")
    func ordinaryTextKept() {
        for text in ["café", "Ада Лавлейс", "مرحبا بالعالم", "日本語", "🙂 👍🏽", #"C:\Net "quoted" <b>"#, "é"] {
            #expect(UntrustedText.escaped(text) == text)
        }
    }

    @Test("the page's displayText escapes the same set: its pattern is built from the Swift one")
    func pageUsesTheSameSet() {
        #expect(
            UntrustedText.javaScriptClass
                == #"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{34F}\u{115F}\u{1160}\u{17B4}\u{17B5}\u{3164}\u{FFA0}]"#)
        #expect(InspectorPage.script.contains(UntrustedText.javaScriptClass))
    }

    @Test("every text the page writes goes through displayText: no other textContent or text node")
    func oneSinkInThePage() {
        let script = InspectorPage.script
        #expect(script.components(separatedBy: ".textContent =").count == 2, "only setText assigns textContent")
        #expect(script.components(separatedBy: "createTextNode(").count == 2, "only textNode makes text nodes")
        #expect(!script.contains("innerText") && !script.contains("document.write"))
    }

    @Test("the pictures and the store's event text escape a bidi override too")
    func pictures() {
        #expect(GraphReport.oneLine(Self.spoofed) == #"invoice\u{202E}fdp.exe\u{202C}"#)
    }
}
