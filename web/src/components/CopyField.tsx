/** A read-only value with a Copy button: a secret shown once (a new SCIM token, an integration key) or a URL to paste elsewhere. */
import { useState } from "preact/hooks";
import { useT } from "../lib/i18n";

export function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useT();
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <p class="copy-field">
      <label>
        {label} <input type="text" readOnly value={value} size={Math.min(72, value.length + 2)} onFocus={(e) => (e.target as HTMLInputElement).select()} />
      </label>{" "}
      <button type="button" onClick={() => void copy()}>
        {t(copied ? "common.copied" : "common.copy")}
      </button>
    </p>
  );
}
